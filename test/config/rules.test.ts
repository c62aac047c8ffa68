import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { OPTIONS, resolveConfig } from '../../src/options.js'
import { readConfigFile } from '../../src/config/file.js'
import { declarationsOf, SERVICES } from '../../src/services/index.js'
import { runMain } from '../helpers/cli.js'

/**
 * The built-in collections' rules in the configuration file (docs/rules.md):
 * `"rules": {"students": {…}, "addresses": {…}}`, compiled at start like a
 * declared collection's, a mistake stopping the start (exit 2) with its JSON
 * path and its position in the expression.
 */
const dir = mkdtempSync(join(tmpdir(), 'rqs-config-rules-'))
afterAll(() => { rmSync(dir, { recursive: true, force: true }) })

let files = 0
function configFile (content: unknown): string {
  const path = join(dir, `rqs-${files++}.json`)
  writeFileSync(path, JSON.stringify(content))
  return path
}

describe('"rules" in the configuration file', () => {
  it('compiles the rules into the built-in collections\' declarations, and leaves them untouched without any', () => {
    const path = configFile({ 'student-ids': 'sequence', rules: { students: { list: 'lastName = @request.auth.sub', delete: '' }, addresses: { create: "@request.auth.roles ?= 'clerk'" } } })
    const config = resolveConfig({}, {}, readConfigFile(path, OPTIONS))
    expect(config.rules).toEqual({ source: path, collections: { students: { list: 'lastName = @request.auth.sub', delete: '' }, addresses: { create: "@request.auth.roles ?= 'clerk'" } } })
    const declarations = new Map(declarationsOf(SERVICES, config).map((d) => [d.name, d]))
    expect(declarations.get('students')?.access?.rules).toEqual({ list: 'lastName = @request.auth.sub', delete: '' })
    expect(declarations.get('addresses')?.access?.has('create')).toBe(true)
    expect(declarations.get('addresses')?.access?.has('list')).toBe(false)
    const plain = resolveConfig({}, {})
    expect(plain.rules).toBeUndefined()
    expect(declarationsOf(SERVICES, plain).every((d) => d.access === undefined)).toBe(true)
  })

  const refused: Array<[string, unknown, string]> = [
    ['an unknown field', { 'student-ids': 'sequence', rules: { students: { update: 'lastNam = @request.auth.sub' } } }, 'FILE: rules.students.update: unknown field "lastNam"'],
    ['bad syntax', { rules: { addresses: { list: "name = = 'x'" } } }, 'FILE: rules.addresses.list: '],
    ['a value sent where none is known', { rules: { addresses: { list: "@request.body.name = 'x'" } } }, 'FILE: rules.addresses.list: @request.body.name: the values sent are known to create and update rules only (at 1 in the expression)'],
    ['an unknown operation', { rules: { students: { lst: '' } } }, 'FILE: rules.students.lst: "lst" is no operation; did you mean "list"?'],
    ['a rule that is no string', { rules: { students: { list: true } } }, 'FILE: rules.students.list: must be an expression in a string'],
    ['rules that are no object', { rules: ['x'] }, 'FILE: rules: must be an object of rules by built-in collection'],
    ['a collection that is not built in', { rules: { books: { list: '' } } }, 'FILE: rules.books: there is no built-in collection books'],
    ['update rules under the count id rule', { rules: { students: { delete: '' } } }, 'FILE: rules.students: under the count id rule a create may replace the record held at its id']
  ]
  for (const [name, content, message] of refused) {
    it(`exits 2 on ${name}, naming the JSON path`, async () => {
      const path = configFile(content)
      const res = await runMain(['serve', '--config', path])
      expect(res.code, res.stderr).toBe(2)
      expect(res.stderr).toContain(`rqs: ${message.replace('FILE', path)}`)
      expect(res.stderr.trim().split('\n')).toHaveLength(1)
    })
  }

  it('tells a declared collection\'s rules to go in its declaration', async () => {
    const path = configFile({ collections: { books: { schema: { type: 'object', properties: { title: { type: 'string' } } } } }, rules: { books: { list: '' } } })
    const res = await runMain(['serve', '--config', path])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain(`rqs: ${path}: rules.books: books is a declared collection: put its rules in its declaration (collections.books.rules)`)
  })
})
