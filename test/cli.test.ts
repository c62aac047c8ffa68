import { describe, expect, it } from 'vitest'
import { readCommandLine } from '../src/cli.js'
import { runMain } from './helpers/cli.js'
import { request, startServer } from './helpers/server.js'
import pkg from '../package.json' with { type: 'json' }

// In-process: main() does nothing on import, so no case here spawns a process (see test/system/cli.test.ts for those).
describe('rqs command line', () => {
  it('--help lists the options with their environment variables and exits 0', async () => {
    const res = await runMain(['--help'])
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('Usage: rqs serve [options]')
    for (const flag of ['--port', '--host', '--students-base', '--assets-dir', '--body-limit']) expect(res.stdout).toContain(flag)
    expect(res.stdout).toContain('[env PORT]')
  })

  it('--version prints the package version', async () => {
    const res = await runMain(['--version'])
    expect(res.code).toBe(0)
    expect(res.stdout.trim()).toBe(pkg.version)
  })

  const bad: Array<[string, string[], NodeJS.ProcessEnv, RegExp]> = [
    ['an unknown flag', ['serve', '--prot', '80'], {}, /Unknown option '--prot'/],
    ['a non-numeric port', ['serve', '--port', 'eighty'], {}, /--port must be a non-negative integer/],
    ['a port out of range', ['serve', '--port', '70000'], {}, /--port must be between 0 and 65535/],
    ['a bad PORT variable', ['serve'], { PORT: 'x' }, /PORT must be a non-negative integer/],
    ['a bad base path', ['serve', '--students-base', 'students'], {}, /--students-base must be a path/],
    ['a bad body limit', ['serve', '--body-limit', 'lots'], {}, /--body-limit must be a size/],
    ['a bad log level', ['serve', '--log-level', 'loud'], {}, /--log-level must be one of/],
    ['no command', [], {}, /a command is required/],
    ['an unknown command', ['launch'], {}, /unknown command "launch"/]
  ]
  for (const [name, args, env, message] of bad) {
    it(`exits 2 with a clear message for ${name}`, async () => {
      const res = await runMain(args, env)
      expect(res.code).toBe(2)
      expect(res.stderr).toMatch(message)
    })
  }

  it('takes flags over environment variables over defaults', async () => {
    const command = readCommandLine(['serve', '--students-base', '/pupils'], { RQS_STUDENTS_BASE: '/learners' })
    if (!('serve' in command)) throw new Error(`expected a configuration, got exit ${command.exit}`)
    const srv = await startServer({ students: command.serve.students })
    try {
      expect((await request(`${srv.origin}/pupils`)).status).toBe(200)
      expect((await request(`${srv.origin}/learners`)).status).toBe(404)
    } finally {
      await srv.close()
    }
  })
})
