import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { OPTIONS, resolveConfig } from '../../src/options.js'
import { readConfigFile } from '../../src/config/file.js'
import { runMain, serveMain } from '../helpers/cli.js'
import { request } from '../helpers/server.js'

const dir = mkdtempSync(join(tmpdir(), 'rqs-config-'))
afterAll(() => { rmSync(dir, { recursive: true, force: true }) })

let files = 0
function configFile (content: unknown): string {
  const path = join(dir, `rqs-${files++}.json`)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

const fromFile = (content: unknown, flags = {}, env = {}): ReturnType<typeof resolveConfig> => {
  const path = configFile(content)
  return resolveConfig(flags, env, readConfigFile(path, OPTIONS))
}

describe('--config rqs.json: the same options, keyed by their long names', () => {
  it('has the precedence flag > environment variable > file > default', () => {
    const content = { port: 1111, 'students-base': '/from-file', 'graphql-max-depth': 7 }
    expect(fromFile(content, { port: '3333' }, { PORT: '2222' }).port).toBe(3333)
    expect(fromFile(content, {}, { PORT: '2222' }).port).toBe(2222)
    expect(fromFile(content).port).toBe(1111)
    expect(fromFile(content).students.base).toBe('/from-file')
    expect(fromFile(content).albums.maxDepth).toBe(7)
    // Not in the file: the default.
    expect(fromFile(content).host).toBe('127.0.0.1')
  })

  it('reads switches as true/false (negated ones too), sizes and lists as the flags read them', () => {
    const config = fromFile({ 'access-log': true, 'no-albums': true, 'no-students': false, 'body-limit': '512kb', deprecate: [1, 2], store: 'sqlite:./x.db' })
    expect(config.accessLog).toBe(true)
    expect(config.albums.enabled).toBe(false)
    expect(config.students.enabled).toBe(true)
    expect(config.bodyLimit).toBe(512 * 1024)
    expect(config.versioning.deprecated).toEqual([1, 2])
    expect(config.store).toMatchObject({ kind: 'sqlite', path: './x.db' })
    // A switch on the command line beats the file saying the opposite.
    expect(fromFile({ 'no-albums': false }, { 'no-albums': true }).albums.enabled).toBe(false)
  })

  it('checks each value with the option\'s own reader, naming the key and the file', () => {
    const path = configFile({ port: 70000 })
    expect(() => resolveConfig({}, {}, readConfigFile(path, OPTIONS))).toThrow(`port in ${path} must be between 0 and 65535, got 70000`)
    const bad: Array<[unknown, string]> = [
      [{ port: 'eighty' }, 'port in FILE must be a non-negative integer, got "eighty"'],
      [{ port: 80.5 }, 'port in FILE must be a non-negative integer, got "80.5"'],
      [{ 'no-albums': 'yes' }, 'no-albums in FILE must be true or false, got "yes"'],
      [{ host: null }, 'host in FILE must be a string or a number, got null'],
      [{ host: { name: 'x' } }, 'host in FILE must be a string or a number, got {"name":"x"}'],
      [{ deprecate: [5] }, 'deprecate in FILE: there is no version 5; the versions are 1, 2']
    ]
    for (const [content, message] of bad) {
      const file = configFile(content)
      expect(() => resolveConfig({}, {}, readConfigFile(file, OPTIONS))).toThrow(message.replace('FILE', file))
    }
  })
})

describe('rqs serve --config', () => {
  it('serves with the file\'s settings (also named by RQS_CONFIG)', async () => {
    const path = configFile({ 'students-base': '/pupils', 'no-albums': true, 'log-level': 'warn' })
    for (const [args, env] of [[['--config', path], {}], [['-c', path], {}], [[], { RQS_CONFIG: path }]] as const) {
      const srv = await serveMain([...args, '--log-level', 'info'], env)
      try {
        expect((await request(`${srv.origin}/pupils`)).status).toBe(200)
        expect((await request(`${srv.origin}/graphql?query={albums{title}}`)).status).toBe(404)
      } finally {
        await srv.stop()
      }
    }
  })

  const refused: Array<[string, () => string, string]> = [
    ['an unknown key, with the likely one', () => configFile({ prot: 9000 }), 'FILE: unknown option "prot" (did you mean "port"?); the keys are the long option names of --help, without dashes'],
    ['an unknown key', () => configFile({ port: 9000, colour: 'blue' }), 'FILE: unknown option "colour"; the keys are the long option names of --help, without dashes'],
    ['the option that names the file', () => configFile({ config: 'other.json' }), 'FILE: unknown option "config"'],
    ['a file that is not there', () => join(dir, 'missing.json'), 'cannot read the configuration file FILE: no such file'],
    ['a file that is not JSON', () => configFile('port = 9000'), 'FILE is not valid JSON: '],
    ['JSON that is not an object', () => configFile([{ port: 9000 }]), 'FILE must hold one JSON object of options, e.g. {"port": 9000}'],
    ['a bad value', () => configFile({ 'log-level': 'loud' }), 'log-level in FILE must be one of fatal, error, warn, info, debug, trace, silent, got "loud"']
  ]
  for (const [name, make, message] of refused) {
    it(`exits 2 on ${name}, in one line`, async () => {
      const path = make()
      const res = await runMain(['serve', '--config', path])
      expect(res.code).toBe(2)
      expect(res.stderr).toContain(`rqs: ${message.replace('FILE', path)}`)
      expect(res.stderr.trim().split('\n')).toHaveLength(1)
    })
  }
})
