import { createServer, connect, type Server } from 'node:net'
import { stripVTControlCharacters } from 'node:util'
import { describe, expect, it } from 'vitest'
import { OPTIONS } from '../src/options.js'
import { runMain, serveMain } from './helpers/cli.js'
import { request } from './helpers/server.js'
import pkg from '../package.json' with { type: 'json' }

// In-process: main() does nothing on import, and `serveMain` gives a run its own signals and
// (when asked) a terminal, so no case here spawns a process (see test/system/cli.test.ts for those).

describe('rqs help', () => {
  it.each([['--help'], ['-h'], ['help']])('rqs %s lists the commands and exits 0', async (arg) => {
    const res = await runMain([arg])
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('Usage: rqs <command> [options]')
    expect(res.stdout).toMatch(/^ {2}serve +run the HTTP server/m)
    expect(res.stdout).toContain('rqs serve --help')
    expect(res.stdout).not.toContain('--port')
  })

  it.each([['serve', '--help'], ['serve', '-h'], ['help', 'serve'], ['serve', '--prot', '80', '--help']])('rqs %s %s shows the options of serve', async (...args) => {
    const res = await runMain(args)
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('Usage: rqs serve [options]')
    for (const o of OPTIONS) {
      const line = new RegExp(`^ {2}(?:-\\w, | {4})--${o.flag}${o.takesValue ? ' <[a-z]+>' : ''}(?: |$)`, 'm')
      expect(res.stdout, o.flag).toMatch(line)
      expect(res.stdout.replace(/\s+/g, ' '), o.flag).toContain(`[env ${o.env ?? ''}]`)
    }
  })

  it('shows the short forms and what each value is', async () => {
    const { stdout } = await runMain(['serve', '--help'])
    for (const synopsis of ['-p, --port <n>', '-H, --host <address>', '-c, --config <file>', '--store <location>', '--body-limit <size>', '--deprecate <versions>', '-h, --help']) {
      expect(stdout).toContain(synopsis)
    }
    // Switches take no value.
    expect(stdout).toMatch(/^ {6}--no-albums +do not mount/m)
  })

  it.each([['--version'], ['-v']])('rqs %s prints the package version', async (arg) => {
    const res = await runMain([arg])
    expect(res.code).toBe(0)
    expect(res.stdout.trim()).toBe(pkg.version)
  })
})

describe('rqs usage errors: one line, a pointer to the help, exit 2', () => {
  const bad: Array<[string, string[], NodeJS.ProcessEnv, string]> = [
    ['an unknown flag', ['serve', '--prot', '80'], {}, "rqs: unknown option --prot (did you mean --port?); see 'rqs serve --help'"],
    ['an unknown short flag', ['serve', '-x'], {}, "rqs: unknown option -x; see 'rqs serve --help'"],
    ['a flag with no close match', ['serve', '--colour'], {}, "rqs: unknown option --colour; see 'rqs serve --help'"],
    ['a missing value', ['serve', '--port'], {}, "rqs: --port needs a value: --port <n>; see 'rqs serve --help'"],
    ['an option where a value belongs', ['serve', '-H', '--port', '80'], {}, "rqs: -H needs a value: -H <address>; see 'rqs serve --help'"],
    ['a value given to a switch', ['serve', '--access-log=yes'], {}, "rqs: --access-log takes no value; see 'rqs serve --help'"],
    ['an extra argument', ['serve', 'now'], {}, "rqs: unexpected argument \"now\"; see 'rqs serve --help'"],
    ['no command', [], {}, "rqs: a command is required, e.g. rqs serve; see 'rqs --help'"],
    ['an unknown command', ['launch'], {}, "rqs: unknown command \"launch\"; see 'rqs --help'"],
    ['a mistyped command', ['serv'], {}, "rqs: unknown command \"serv\" (did you mean \"serve\"?); see 'rqs --help'"],
    ['an option before its command', ['--port', '80', 'serve'], {}, "rqs: --port is an option of 'rqs serve': write it after the command, e.g. rqs serve --port 80"],
    ['an unknown global option', ['--verison'], {}, "rqs: unknown option --verison (did you mean --version?); see 'rqs --help'"],
    ['help for an unknown command', ['help', 'launch'], {}, "rqs: unknown command \"launch\"; see 'rqs --help'"],
    // Values: the option (or variable) and what is wrong with it.
    ['a non-numeric port', ['serve', '-p', 'eighty'], {}, 'rqs: --port must be a non-negative integer, got "eighty"'],
    ['a port out of range', ['serve', '--port', '70000'], {}, 'rqs: --port must be between 0 and 65535, got 70000'],
    ['a bad PORT variable', ['serve'], { PORT: 'x' }, 'rqs: PORT must be a non-negative integer, got "x"'],
    ['a bad base path', ['serve', '--students-base', 'students'], {}, 'rqs: --students-base must be a path such as /students, got "students"'],
    ['a bad body limit', ['serve', '--body-limit', 'lots'], {}, 'rqs: --body-limit must be a size such as 1048576, 512kb or 1mb, got "lots"'],
    ['a bad log level', ['serve', '--log-level', 'loud'], {}, 'rqs: --log-level must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
    ['a bad log format', ['serve', '--log-format', 'xml'], {}, 'rqs: --log-format must be one of pretty, json, got "xml"'],
    ['a version that does not exist', ['serve', '--deprecate', '5'], {}, 'rqs: --deprecate: there is no version 5; the versions are 1, 2'],
    ['an impossible IPv4 host', ['serve', '--host', '999.1.1.1'], {}, 'rqs: --host must be an IPv4 address of four numbers from 0 to 255 (or a host name), got "999.1.1.1"'],
    ['a host that is no name', ['serve', '-H', 'my host'], {}, 'rqs: --host must be an IP address or a host name, got "my host"'],
    ['a bad switch variable', ['serve'], { RQS_NO_ALBUMS: 'perhaps' }, 'rqs: RQS_NO_ALBUMS must be true or false, got "perhaps"']
  ]
  for (const [name, args, env, message] of bad) {
    it(`${name}: ${args.join(' ')}`, async () => {
      const res = await runMain(args, env)
      expect(res.code).toBe(2)
      expect(res.stderr).toBe(`${message}\n`)
      expect(res.stdout).toBe('')
    })
  }
})

describe('rqs serve start-up and shutdown', () => {
  it('on a terminal: one readable block with the version, store and every URL; pretty logs; a line when shutdown is done', async () => {
    const srv = await serveMain(['--access-log'], {}, { tty: true })
    const res = await request(`${srv.origin}/students`, { headers: { 'x-request-id': 'trace-tty' } })
    expect(res.status).toBe(200)
    expect(await srv.stop()).toBe(0)
    // A terminal gets colours; the text is what matters here.
    const out = stripVTControlCharacters(srv.stdout())
    const block = out.slice(0, out.indexOf('Press Ctrl+C to stop.'))
    expect(block).toContain(`rqs ${pkg.version} is listening on ${srv.origin}`)
    expect(block).toMatch(/Store +memory/)
    for (const [label, path] of [['students', '/students'], ['addresses', '/addresses'], ['albums', '/graphql'], ['landing page', '/'], ['web app', '/app/'], ['GraphiQL', '/graphiql'], ['API docs', '/docs/api'], ['health', '/healthz']]) {
      expect(block).toMatch(new RegExp(`${label} +${srv.origin}${path}\\n`))
    }
    // Fastify's own "Server listening" lines are replaced by the block; nothing here is JSON.
    expect(out).not.toContain('Server listening')
    expect(out).not.toMatch(/^\{/m)
    expect(out).toMatch(/INFO.*: GET \/students 200 [\d.]+ ms \d+ B \[trace-tty\]/)
    expect(out).toMatch(/INFO.*: shutting down on SIGTERM: no new connections, finishing in-flight requests\n.*INFO.*: shutdown complete/)
  })

  it('elsewhere: the same facts as one JSON line, JSON logs, and the shutdown line', async () => {
    const srv = await serveMain(['--students-base', '/pupils', '--no-albums'])
    expect(await srv.stop()).toBe(0)
    const lines = srv.stdout().trim().split('\n').map((l) => JSON.parse(l))
    const started = lines.filter((l) => /listening/.test(l.msg))
    expect(started).toHaveLength(1)
    expect(started[0]).toMatchObject({
      level: 30,
      msg: `Server listening at ${srv.origin}`,
      version: pkg.version,
      listening: [srv.origin],
      store: { kind: 'memory' },
      links: { self: `${srv.origin}/`, students: `${srv.origin}/pupils`, app: `${srv.origin}/app/`, 'service-doc': `${srv.origin}/docs/api`, status: `${srv.origin}/healthz` }
    })
    expect(started[0].links.albums).toBeUndefined()
    expect(lines.at(-1)).toMatchObject({ level: 30, msg: expect.stringMatching(/^shutdown complete/) })
  })

  it('--log-format overrides the terminal default both ways', async () => {
    const json = await serveMain(['--log-format', 'json'], {}, { tty: true })
    await json.stop()
    expect(JSON.parse(json.stdout().split('\n')[0] as string)).toMatchObject({ msg: `Server listening at ${json.origin}` })

    const pretty = await serveMain([], { RQS_LOG_FORMAT: 'pretty' })
    await pretty.stop()
    expect(pretty.stdout()).toContain(`is listening on ${pretty.origin}`)
    // Not a terminal: no colour codes.
    expect(pretty.stdout()).not.toContain('\u001b[')
  })

  it('a log level above info leaves the block out too', async () => {
    const srv = await serveMain(['--log-level', 'warn'], {}, { tty: true, port: await freePort() })
    expect((await request(`${srv.origin}/healthz`)).status).toBe(200)
    expect(await srv.stop()).toBe(0)
    expect(srv.stdout()).toBe('')
  })

  it('takes -p and -H for --port and --host', async () => {
    const port = await freePort()
    const srv = await serveMain(['-p', String(port), '-H', 'localhost'])
    try {
      expect(new URL(srv.origin).port).toBe(String(port))
      expect((await request(`${srv.origin}/healthz`)).status).toBe(200)
    } finally {
      await srv.stop()
    }
  })

  it('takes flags over environment variables over defaults', async () => {
    const srv = await serveMain(['--students-base', '/pupils'], { RQS_STUDENTS_BASE: '/learners', RQS_NO_ADDRESSES: 'true' })
    try {
      expect((await request(`${srv.origin}/pupils`)).status).toBe(200)
      expect((await request(`${srv.origin}/learners`)).status).toBe(404)
      expect((await request(`${srv.origin}/addresses`)).status).toBe(404)
    } finally {
      await srv.stop()
    }
  })
})

describe('rqs serve --access-log', () => {
  it('logs status, duration, the bytes the answer put on the wire and the request id', async () => {
    const srv = await serveMain(['--access-log'])
    try {
      const plain = await rawGet(srv.origin, '/students', { 'x-request-id': 'trace-plain' })
      // A compressed answer has no Content-Length: the count is what was sent.
      const compressed = await rawGet(srv.origin, '/openapi.json', { 'x-request-id': 'trace-br', 'accept-encoding': 'br' })
      expect(compressed.head).toMatch(/content-encoding: br/i)
      const missing = await rawGet(srv.origin, '/nowhere', { 'x-request-id': 'trace-404' })
      const logged = await waitForLines(srv, 3, (l) => l.msg === 'request completed')
      expect(logged).toEqual([
        expect.objectContaining({ reqId: 'trace-plain', method: 'GET', url: '/students', statusCode: 200, bytes: plain.bytes, responseTime: expect.any(Number) }),
        expect.objectContaining({ reqId: 'trace-br', url: '/openapi.json', statusCode: 200, bytes: compressed.bytes }),
        expect.objectContaining({ reqId: 'trace-404', url: '/nowhere', statusCode: 404, bytes: missing.bytes })
      ])
    } finally {
      await srv.stop()
    }
  })
})

describe('rqs serve: where it cannot listen (exit 1, one line naming the host or port)', () => {
  it('a port in use', async () => {
    const busy = await listening()
    try {
      const port = (busy.address() as { port: number }).port
      const res = await runMain(['serve', '--port', String(port), '--log-level', 'silent'])
      expect(res.code).toBe(1)
      expect(res.stderr).toBe(`rqs: cannot listen on 127.0.0.1 port ${port}: the port is in use (choose another with --port / PORT, or 0 for a free one)\n`)
    } finally {
      busy.close()
    }
  })

  it('an address that is not this machine\'s', async () => {
    // 192.0.2.0/24 is reserved for documentation (RFC 5737): never a local address.
    const res = await runMain(['serve', '--port', '0', '--host', '192.0.2.1', '--log-level', 'silent'])
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(/^rqs: cannot listen on 192\.0\.2\.1: not an address of this machine .*--host \/ HOST\)\n$/)
  })

  it('a host name that does not resolve', async () => {
    // .invalid never resolves (RFC 6761); without DNS at all the lookup fails too, with its own wording.
    const res = await runMain(['serve', '--port', '0', '--host', 'nosuchhost.invalid', '--log-level', 'silent'])
    expect(res.code).toBe(1)
    expect(res.stderr).toMatch(/^rqs: cannot listen on "nosuchhost\.invalid": (no such host|the name could not be looked up now) .*--host \/ HOST.*\n$/)
  })
})

async function listening (): Promise<Server> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return server
}

async function freePort (): Promise<number> {
  const server = await listening()
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** A GET on its own connection, counting every byte that comes back (head and body as sent). */
async function rawGet (origin: string, path: string, headers: Record<string, string>): Promise<{ head: string, bytes: number }> {
  const { hostname, port } = new URL(origin)
  const socket = connect(Number(port), hostname)
  const chunks: Buffer[] = []
  socket.on('data', (c: Buffer) => chunks.push(c))
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')
  socket.write(`GET ${path} HTTP/1.1\r\nhost: ${hostname}\r\n${lines}connection: close\r\n\r\n`)
  await new Promise<void>((resolve, reject) => { socket.on('close', () => resolve()); socket.on('error', reject) })
  const all = Buffer.concat(chunks)
  return { head: all.subarray(0, all.indexOf('\r\n\r\n')).toString('latin1'), bytes: all.length }
}

/** The JSON log lines that match, once there are `count` of them (the line is written when the answer has finished). */
async function waitForLines (srv: { stdout: () => string }, count: number, match: (line: any) => boolean): Promise<any[]> {
  for (let i = 0; i < 200; i++) {
    const lines = srv.stdout().trim().split('\n').map((l) => JSON.parse(l)).filter(match)
    if (lines.length >= count) return lines
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`fewer than ${count} matching log lines in:\n${srv.stdout()}`)
}
