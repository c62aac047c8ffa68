import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { tokenCommand } from '../../../src/commands/token.js'
import { ANONYMOUS_CALLER, compileAccess, holds, type Caller } from '../../../src/domain/index.js'
import { rolesOf } from '../../../src/http/security/jwt.js'
import { parseTokenFile, TokenSet } from '../../../src/http/security/tokens.js'
import { ConfigError } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { ruleFields } from '../../../src/services/collections/access.js'
import { runMain } from '../../helpers/cli.js'
import { request, startServer } from '../../helpers/server.js'
import { security } from '../../http/security/helpers.js'
import { declarationFiles } from './fixture.js'
import { NOTES } from './rules.suite.js'

/** Where callers come from (token entries, `rqs token`, JWT claims) and how rules with mistakes stop the start. */
const files = declarationFiles()

const withRules = (rules: Record<string, unknown>, extra: Record<string, unknown> = {}): unknown => ({
  collections: { notes: { ...NOTES.collections.notes, rules, ...extra } }
})
const withProperty = (name: string, schema: Record<string, unknown>): unknown => ({
  collections: { notes: { ...NOTES.collections.notes, schema: { ...NOTES.collections.notes.schema, properties: { ...NOTES.collections.notes.schema.properties, [name]: schema } } } }
})

function refusal (content: unknown): string {
  const path = files.write('r.json', content)
  try {
    fromFile(path, '--collections')
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message.replace(path, 'FILE')
  }
  throw new Error('accepted')
}

describe('rules with mistakes stop the start with their JSON path and position', () => {
  it.each([
    ['an unknown field', withRules({ update: 'autor = @request.auth.sub' }), 'FILE: collections.notes.rules.update: unknown field "autor" (fields: id, title, public, stars, author, email) (at 1 in the expression)'],
    ['a wrong type', withRules({ list: "stars > 'many'" }), "FILE: collections.notes.rules.list: stars must be an integer from -9007199254740991 to 9007199254740991, not 'many' (at 9 in the expression)"],
    ['bad syntax', withRules({ view: 'public = true ||' }), 'FILE: collections.notes.rules.view: expected a field, a value or @request…, found the end (at 17 in the expression)'],
    ['an unknown request value', withRules({ list: 'author = @request.auth.name' }), 'FILE: collections.notes.rules.list: unknown request value @request.auth.name: use @request.auth.sub, @request.auth.roles or @request.body.<field> (at 10 in the expression)'],
    ['the body in a list rule', withRules({ list: '@request.body.stars = 1' }), 'FILE: collections.notes.rules.list: @request.body.stars: the values sent are known to create and update rules only (at 1 in the expression)'],
    ['roles without ?=', withRules({ list: "@request.auth.roles = 'editor'" }), "FILE: collections.notes.rules.list: @request.auth.roles is a list: test it with '?=' (at 21 in the expression)"],
    ['kinds that differ', withRules({ list: 'stars = @request.auth.sub' }), 'FILE: collections.notes.rules.list: stars is integer and @request.auth.sub is string: compare values of one kind (at 7 in the expression)'],
    ['an unknown operation', withRules({ lsit: '' }), 'FILE: collections.notes.rules.lsit: "lsit" is no operation; did you mean "list"? (rules: list, view, create, update, delete)'],
    ['a rule that is no string', withRules({ list: true }), 'FILE: collections.notes.rules.list: must be an expression in a string ("" lets anyone through whom the scopes let through), got true'],
    ['x-read with a mistake', withProperty('secret', { type: 'string', 'x-read': 'author == 1' }), 'FILE: collections.notes.schema.properties.secret.x-read: expected a field, a value or @request…, not \'=\' (at 9 in the expression)'],
    ['x-owner on a number', withProperty('owner2', { type: 'integer', 'x-owner': true }), 'FILE: collections.notes.schema.properties.owner2.x-owner: applies to a plain text field only: {"type": "string", "x-owner": true}'],
    ['two owners', withProperty('coauthor', { type: 'string', 'x-owner': true }), 'FILE: collections.notes.schema.properties.coauthor.x-owner: a collection has one owner field, and author is it']
  ])('%s', (_what, content, message) => {
    expect(refusal(content)).toBe(message)
  })

  it('exits 2 from rqs serve, naming the rule and the position', async () => {
    const file = files.write('bad-rule.json', withRules({ update: 'autor = @request.auth.sub' }))
    const { code, stderr } = await runMain(['serve', '--port', '0', '--collections', file])
    expect(code).toBe(2)
    expect(stderr).toContain(`${file}: collections.notes.rules.update: unknown field "autor"`)
    expect(stderr).toContain('(at 1 in the expression)')
  })
})

describe('rules compiled into filters per caller', () => {
  const { declaration } = fromFile(files.write('ok.json', NOTES), '--collections').declared[0] as { declaration: Parameters<typeof ruleFields>[0] }
  const access = compileAccess({ rules: { list: "public = true || author = @request.auth.sub || @request.auth.roles ?= 'editor'", update: '@request.body.stars != 9 && author = @request.auth.sub' } }, ruleFields(declaration))
  const alice: Caller = { sub: 'alice', roles: [], admin: false }
  const editor: Caller = { sub: 'ed', roles: ['editor'], admin: false }

  it('puts the request values in and folds what they decide', () => {
    expect(access.allowance('list', alice)).toEqual({ op: 'or', items: [{ op: 'eq', field: 'public', value: true }, { op: 'eq', field: 'author', value: 'alice' }] })
    expect(access.allowance('list', editor)).toBe(true)
    expect(access.allowance('list', ANONYMOUS_CALLER)).toEqual({ op: 'eq', field: 'public', value: true })
    expect(access.allowance('list', { roles: [], admin: true })).toBe(true)
    expect(access.allowance('update', alice, { stars: 9 })).toBe(false)
    expect(holds(access.allowance('update', alice, { stars: 1 }), { id: 1, author: 'alice' })).toBe(true)
    expect(holds(access.allowance('update', alice, { stars: 1 }), { id: 1, author: 'bob' })).toBe(false)
    // No rule: what the scopes allow.
    expect(access.allowance('delete', ANONYMOUS_CALLER)).toBe(true)
  })
})

describe('identities of static tokens', () => {
  it('reads sub and roles from token entries (the name is the subject unless sub says otherwise) and refuses bad ones', () => {
    const sha = 'a'.repeat(64)
    const set = new TokenSet(parseTokenFile(JSON.stringify({ tokens: [{ name: 'alice', sha256: sha, scopes: ['read'], roles: ['editor', 'editor'] }, { name: 'ci', sha256: 'b'.repeat(64), scopes: ['read'], sub: 'robot-1' }] }), 't.json'))
    expect(set.size).toBe(2)
    expect(parseTokenFile(JSON.stringify({ tokens: [{ name: 'alice', sha256: sha, scopes: ['read'], roles: ['editor', 'editor'] }] }), 't.json')).toEqual([{ name: 'alice', sha256: sha, scopes: ['read'], roles: ['editor'] }])
    expect(() => parseTokenFile(JSON.stringify({ tokens: [{ name: 'a', sha256: sha, scopes: ['read'], roles: 'editor' }] }), 't.json')).toThrow('tokens file t.json: tokens[0].roles must be a list of role names')
    expect(() => parseTokenFile(JSON.stringify({ tokens: [{ name: 'a', sha256: sha, scopes: ['read'], sub: '' }] }), 't.json')).toThrow('tokens file t.json: tokens[0].sub: a subject is 1 to 256 characters')
  })

  it('rqs token --roles and --sub write them into the entry', () => {
    const run = (argv: string[]): { code: number, stdout: string, stderr: string } => {
      const out = new PassThrough()
      const err = new PassThrough()
      const code = tokenCommand(argv, out, err)
      return { code, stdout: String(out.read() ?? ''), stderr: String(err.read() ?? '') }
    }
    const made = run(['--name', 'alice', '--scopes', 'read,write', '--roles', 'editor,reviewer', '--json'])
    expect(made.code).toBe(0)
    expect(JSON.parse(made.stdout).entry).toMatchObject({ name: 'alice', scopes: ['read', 'write'], roles: ['editor', 'reviewer'] })
    expect(JSON.parse(made.stdout).entry).not.toHaveProperty('sub')
    expect(JSON.parse(run(['--name', 'ci', '--sub', 'robot-1', '--json']).stdout).entry).toMatchObject({ name: 'ci', sub: 'robot-1' })
    expect(run(['--name', 'x', '--roles', 'a b']).code).toBe(2)
    expect(run(['--name', 'x', '--sub', '']).code).toBe(2)
  })
})

describe('roles of JWTs', () => {
  it('reads the roles claim at a dotted path: an array or a space-separated string, anything else none', () => {
    expect(rolesOf({ roles: ['editor'] }, 'roles')).toEqual(['editor'])
    expect(rolesOf({ realm_access: { roles: ['editor', 'x'] } }, 'realm_access.roles')).toEqual(['editor', 'x'])
    expect(rolesOf({ roles: 'a b' }, 'roles')).toEqual(['a', 'b'])
    expect(rolesOf({ roles: 7 }, 'roles')).toEqual([])
    expect(rolesOf({}, 'realm_access.roles')).toEqual([])
  })

  const idp = createServer()
  afterAll(() => { idp.close() })

  it('gives a JWT caller its sub and the roles of --auth-roles-claim, which rules then test', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256')
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k', alg: 'ES256', use: 'sig' }
    idp.on('request', (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })) })
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve))
    const url = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/jwks`
    const sign = async (sub: string, roles: string[]): Promise<string> => await new SignJWT({ scope: 'read write', realm_access: { roles } })
      .setProtectedHeader({ alg: 'ES256', kid: 'k', typ: 'at+jwt' }).setIssuer('https://idp.test/').setAudience('rqs').setSubject(sub).setIssuedAt().setExpirationTime('5m').sign(privateKey)
    const collections = fromFile(files.write('jwt-notes.json', NOTES), '--collections')
    const server = await startServer({ collections, security: security({ authJwksUrl: url, authIssuer: 'https://idp.test/', authAudience: 'rqs', authRolesClaim: 'realm_access.roles' }) })
    try {
      const as = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` })
      const alice = await sign('alice', [])
      const created = await request(`${server.origin}/notes`, { method: 'POST', json: { title: 'mine' }, headers: as(alice) })
      expect(created.status, created.text).toBe(201)
      expect(created.body.author).toBe('alice')
      expect((await request(`${server.origin}/notes`, { headers: as(await sign('bob', [])) })).body.items).toEqual([])
      expect((await request(`${server.origin}/notes`, { headers: as(await sign('eve', ['editor'])) })).body.items).toHaveLength(1)
    } finally {
      await server.close()
    }
  })
})
