#!/usr/bin/env node
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ConfigError, OPTIONS, resolveConfig } from './config.js'
import { buildServer } from './server.js'
import { tokenCommand } from './commands/token.js'
import { PACKAGE_VERSION as version } from './version.js'

/** Exit codes: 0 ok, 1 failed at run time, 2 bad usage or configuration. */
const EXIT_USAGE = 2
const EXIT_FAILURE = 1


function usage (): string {
  const width = Math.max(...OPTIONS.map((o) => o.flag.length)) + 4
  const lines = OPTIONS.map((o) => {
    const env = o.env === undefined ? '' : ` [env ${o.env}]`
    return `  --${o.flag.padEnd(width)}${o.description}${env}`
  })
  return [
    `rqs ${version} — Record and Query Services`,
    '',
    'Usage: rqs serve [options]',
    '       rqs token --name NAME --scopes read,write   (a new access token for --auth-tokens)',
    '       rqs --help | --version',
    '',
    'Options:',
    ...lines,
    `  --${'help'.padEnd(width)}show this text`,
    `  --${'version'.padEnd(width)}print the version`,
    ''
  ].join('\n')
}

export async function main (argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (argv[0] === 'token') return tokenCommand(argv.slice(1))
  const options: ParseArgsConfig['options'] = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } }
  for (const o of OPTIONS) options[o.flag] = { type: o.type === 'boolean' ? 'boolean' : 'string' }

  let parsed
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true })
  } catch (err) {
    process.stderr.write(`rqs: ${(err as Error).message}\n\n${usage()}`)
    return EXIT_USAGE
  }
  const { values, positionals } = parsed
  if (values.help === true) { process.stdout.write(usage()); return 0 }
  if (values.version === true) { process.stdout.write(`${version}\n`); return 0 }
  const command = positionals[0]
  if (command !== 'serve' || positionals.length > 1) {
    const what = command === undefined ? 'a command is required' : `unknown command "${positionals.join(' ')}"`
    process.stderr.write(`rqs: ${what}\n\n${usage()}`)
    return EXIT_USAGE
  }

  let config
  try {
    config = resolveConfig(values as Record<string, string | boolean | undefined>, env)
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`rqs: ${err.message}\n`)
      return EXIT_USAGE
    }
    throw err
  }

  let app
  try {
    app = await buildServer(config)
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    process.stderr.write(`rqs: could not start: ${(err as Error).message}\n`)
    if (app !== undefined) await app.close().catch(() => {})
    return EXIT_FAILURE
  }

  const server = app
  return await new Promise<number>((resolve) => {
    let stopping = false
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) process.exit(EXIT_FAILURE) // a second signal: stop waiting
      stopping = true
      server.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests')
      const force = setTimeout(() => {
        server.log.warn('shutdown timeout: closing open connections')
        server.server.closeAllConnections()
      }, config.shutdownTimeoutMs)
      force.unref()
      server.close().then(() => { clearTimeout(force); resolve(0) }, (err: unknown) => {
        server.log.error({ err }, 'error while shutting down')
        resolve(EXIT_FAILURE)
      })
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

main(process.argv.slice(2), process.env).then((code) => { process.exitCode = code }, (err: unknown) => {
  process.stderr.write(`rqs: ${(err as Error).stack ?? String(err)}\n`)
  process.exitCode = EXIT_FAILURE
})
