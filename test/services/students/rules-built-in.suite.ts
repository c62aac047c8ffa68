import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { runExport } from '../../../src/commands/export.js'
import type { CommandIO } from '../../../src/commands/common.js'
import { generateToken, tokenEntry, type Scope } from '../../../src/http/security/tokens.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { connectFeed } from '../../helpers/sse.js'
import { gql, subscribe } from '../../graphql/helpers.js'
import { security } from '../../http/security/helpers.js'

/**
 * Rules of the built-in collections from the configuration file
 * (docs/rules.md), as an attacker would try them: anonymous, alice, bob, a
 * teacher and an admin × students (v1 in its envelope, v2) and addresses ×
 * lists (JSON, NDJSON, CSV), reads, creates (one, bulk), PUT, PATCH, DELETE
 * (one, filtered), aggregates, batches, idempotent replays, GraphQL queries,
 * mutations and subscriptions, the feed's replay, `rqs export --url` and the
 * listing's `operations`. rules-built-in.test.ts runs it on memory and
 * SQLite, rules-built-in-pg.test.ts on PostgreSQL.
 */

/** A student is its caller's own when its lastName is the caller's subject; a teacher sees every student, changes none but its own. */
export const BUILT_IN_RULES = {
  students: {
    list: "lastName = @request.auth.sub || @request.auth.roles ?= 'teacher'",
    view: "lastName = @request.auth.sub || @request.auth.roles ?= 'teacher'",
    create: 'lastName = @request.auth.sub',
    update: 'lastName = @request.auth.sub && @request.body.age <= 120',
    delete: 'lastName = @request.auth.sub'
  },
  addresses: {
    list: "name = @request.auth.sub || city = 'Public'",
    view: "name = @request.auth.sub || city = 'Public'",
    create: 'name = @request.auth.sub',
    update: 'name = @request.auth.sub',
    delete: 'name = @request.auth.sub'
  }
}

type Json = Record<string, any>
type Who = 'anonymous' | 'alice' | 'bob' | 'teacher' | 'admin'
const WHO: readonly Who[] = ['anonymous', 'alice', 'bob', 'teacher', 'admin']
const V2 = { accept: 'application/vnd.rqs.v2+json' }

export function builtInRulesSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  const tokens: Partial<Record<Who, string>> = {}
  const as = (who: Who): Record<string, string> => tokens[who] === undefined ? {} : { authorization: `Bearer ${tokens[who]}` }
  const call = async (who: Who, method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<{ status: number, body: any, text: string, headers: Headers }> =>
    await request(`${server.origin}${path}`, { method, ...(json === undefined ? {} : { json }), headers: { ...headers, ...as(who) } })
  const names = (items: Json[]): string[] => items.map((s) => s.firstName as string).sort()
  const ids: Record<string, number> = {}
  const addressIds: Record<string, string> = {}

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rqs-built-in-rules-'))
    const entries = ([['alice', ['read', 'write'], []], ['bob', ['read', 'write'], []], ['teacher', ['read', 'write'], ['teacher']], ['admin', ['read', 'write', 'admin'], []]] as Array<[Who, Scope[], string[]]>)
      .map(([name, scopes, roles]) => { tokens[name] = generateToken(); return tokenEntry(tokens[name], name, scopes, { roles }) })
    await writeFile(join(dir, 'tokens.json'), JSON.stringify({ tokens: entries }))
    const store = storeOf()
    server = await startServer({
      students: { ids: 'sequence' },
      // The listing of collections (and its operations) runs with the admin API of collections.
      collections: { declared: [], api: true },
      rules: { source: 'rqs.json', collections: BUILT_IN_RULES },
      security: security({ authTokensFile: join(dir, 'tokens.json'), authPublicRead: true, authFailureLimit: { max: 10_000, windowMs: 60_000 } }),
      ...(store === undefined ? {} : { store })
    })
    for (const [who, first] of [['alice', 'a1'], ['alice', 'a2'], ['bob', 'b1']] as Array<[Who, string]>) {
      const created = await call(who, 'POST', '/students', { firstName: first, lastName: who, age: 20 })
      expect(created.status, created.text).toBe(201)
      expect(created.body.isSuccessful).toBe(true)
      ids[first] = created.body.body.id
    }
    for (const [who, name, city] of [['alice', 'alice', 'Berlin'], ['bob', 'bob', 'Bonn'], ['admin', 'carol', 'Public']] as Array<[Who, string, string]>) {
      const created = await call(who, 'POST', '/addresses', { name, city, postalCode: '10115' })
      expect(created.status, created.text).toBe(201)
      addressIds[name] = String(created.body.id)
    }
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  const SEES: Record<Who, string[]> = { anonymous: [], alice: ['a1', 'a2'], bob: ['b1'], teacher: ['a1', 'a2', 'b1'], admin: ['a1', 'a2', 'b1'] }

  it('v1 and v2 list only the students each caller may list (whole lists, pages, NDJSON, CSV)', async () => {
    for (const who of WHO) {
      const v1 = await call(who, 'GET', '/students')
      expect(v1.status, v1.text).toBe(200)
      expect(v1.body.isSuccessful).toBe(true)
      expect(names(v1.body.body), who).toEqual(SEES[who])
      const v1Page = await call(who, 'GET', '/students?limit=1&count=true')
      expect(v1Page.headers.get('x-total-count'), who).toBe(String(SEES[who].length))
      const v2 = await call(who, 'GET', '/students', undefined, V2)
      expect(names(v2.body), who).toEqual(SEES[who])
      const page = await call(who, 'GET', '/students?limit=10&count=true', undefined, V2)
      expect(names(page.body.items), who).toEqual(SEES[who])
      expect(page.headers.get('x-total-count'), who).toBe(String(SEES[who].length))
      const ndjson = await call(who, 'GET', '/students', undefined, { accept: 'application/x-ndjson' })
      expect(names(ndjson.text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json)), who).toEqual(SEES[who])
      const csv = await call(who, 'GET', '/students', undefined, { accept: 'text/csv' })
      expect(csv.text.includes('a1'), who).toBe(SEES[who].includes('a1'))
      expect(csv.text.includes('b1'), who).toBe(SEES[who].includes('b1'))
    }
  })

  it('answers a student out of view as not found: v1 in its envelope, v2 as a problem', async () => {
    const v1 = await call('bob', 'GET', `/students/${ids.a1}`)
    expect(v1.status).toBe(404)
    expect(v1.body).toEqual({ isSuccessful: false, body: `Student with id ${ids.a1} was not found` })
    expect((await call('anonymous', 'GET', `/students/${ids.b1}`)).status).toBe(404)
    expect((await call('bob', 'GET', `/students/${ids.a1}`, undefined, V2)).body.errors[0].error).toBe('STUDENT_NOT_FOUND')
    expect((await call('teacher', 'GET', `/students/${ids.a1}`)).body.body.firstName).toBe('a1')
    expect((await call('alice', 'GET', `/students/${ids.a1}`, undefined, V2)).body.firstName).toBe('a1')
  })

  it('refuses v1 writes a rule refuses with 403 in the envelope, and lets the owner write', async () => {
    const foreign = await call('bob', 'POST', '/students', { firstName: 'x', lastName: 'alice', age: 1 })
    expect(foreign.status).toBe(403)
    expect(foreign.body.isSuccessful).toBe(false)
    expect(foreign.body.body).toMatch(/create rule/)
    expect((await call('anonymous', 'POST', '/students', { firstName: 'x', lastName: 'x', age: 1 })).status).toBe(401)
    expect((await call('bob', 'PUT', '/students', { id: ids.a1, firstName: 'hacked', lastName: 'bob', age: 1 })).body).toEqual({ isSuccessful: false, body: `Student with id ${ids.a1} was not found` })
    const teacher = await call('teacher', 'PUT', '/students', { id: ids.a1, firstName: 'hacked', lastName: 'alice', age: 1 })
    expect(teacher.status).toBe(403)
    expect(teacher.body.isSuccessful).toBe(false)
    // The record it would become counts too: alice may not give her student away, nor an age the rule refuses.
    expect((await call('alice', 'PUT', '/students', { id: ids.a1, firstName: 'a1', lastName: 'bob', age: 20 })).status).toBe(403)
    expect((await call('alice', 'PUT', '/students', { id: ids.a1, firstName: 'a1', lastName: 'alice', age: 121 })).status).toBe(403)
    const own = await call('alice', 'PUT', '/students', { id: ids.a1, firstName: 'a1', lastName: 'alice', age: 21 })
    expect(own.status, own.text).toBe(200)
    expect(own.body).toEqual({ isSuccessful: true, body: { id: ids.a1, firstName: 'a1', lastName: 'alice', age: 21 } })
    expect((await call('bob', 'DELETE', `/students/${ids.a1}`)).status).toBe(404)
    expect((await call('teacher', 'DELETE', `/students/${ids.a1}`)).body.isSuccessful).toBe(false)
    const made = await call('bob', 'POST', '/students', { firstName: 'b-tmp', lastName: 'bob', age: 30 })
    expect(made.status).toBe(201)
    expect((await call('bob', 'DELETE', `/students/${made.body.body.id as number}`)).body).toEqual({ isSuccessful: true, body: `Student with id ${made.body.body.id as number} was deleted` })
    expect((await call('admin', 'GET', `/students/${ids.a1}`)).body.body.age).toBe(21)
  })

  it('refuses v2 writes (PUT, PATCH, DELETE, bulk, filtered, batch) the same way, nothing written', async () => {
    for (const method of ['PUT', 'PATCH']) {
      expect((await call('bob', method, `/students/${ids.a2}`, { firstName: 'h', lastName: 'bob', age: 1 }, V2)).status, method).toBe(404)
      const refused = await call('teacher', method, `/students/${ids.a2}`, { firstName: 'h', lastName: 'alice', age: 1 }, V2)
      expect(refused.status, method).toBe(403)
      expect(refused.body.errors[0].error).toBe('RULE_DENIED')
    }
    expect((await call('teacher', 'DELETE', `/students/${ids.a2}`, undefined, V2)).status).toBe(403)
    expect((await call('bob', 'PUT', '/students', { id: ids.a2, firstName: 'h', lastName: 'bob', age: 1 }, V2)).status).toBe(404)
    const bulk = await call('bob', 'POST', '/students', [{ firstName: 'ok', lastName: 'bob', age: 1 }, { firstName: 'no', lastName: 'alice', age: 1 }], V2)
    expect(bulk.status).toBe(403)
    expect((await call('teacher', 'PATCH', '/students?all=true', { age: 30 }, V2)).status).toBe(403)
    expect((await call('teacher', 'DELETE', '/students?all=true', undefined, V2)).status).toBe(403)
    // Bob's filtered patch selects only what he may list: alice's students are not even seen.
    expect((await call('bob', 'PATCH', '/students?all=true', { age: 31 }, V2)).body).toEqual({ changed: 1 })
    const batch = await call('bob', 'POST', '/batch', { requests: [{ method: 'PATCH', url: `/v2/students/${ids.b1}`, body: { age: 32 } }, { method: 'DELETE', url: `/v2/students/${ids.a2}` }] })
    expect(batch.status).toBe(422)
    expect(batch.body.failed.status).toBe(404)
    const all = await call('admin', 'GET', '/students', undefined, V2)
    expect(Object.fromEntries((all.body as Json[]).map((s) => [s.firstName, s.age]))).toEqual({ a1: 21, a2: 20, b1: 31 })
    const patched = await call('bob', 'PATCH', `/students/${ids.b1}`, { age: 20 }, V2)
    expect(patched.status, patched.text).toBe(200)
  })

  it('addresses: lists, reads, PUT that creates, updates, deletes and aggregates follow their rules', async () => {
    const listed = async (who: Who): Promise<string[]> => ((await call(who, 'GET', '/addresses?limit=100')).body.items as Json[]).map((a) => a.name as string).sort()
    expect(await listed('anonymous')).toEqual(['carol'])
    expect(await listed('alice')).toEqual(['alice', 'carol'])
    expect(await listed('admin')).toEqual(['alice', 'bob', 'carol'])
    expect((await call('bob', 'GET', `/addresses/${addressIds.alice}`)).status).toBe(404)
    expect((await call('bob', 'GET', `/addresses/${addressIds.carol}`)).status).toBe(200)
    expect((await call('bob', 'GET', '/addresses/aggregate?count=true')).body.groups).toEqual([{ key: {}, count: 2 }])
    // A PUT that creates is a create: checked against the create rule.
    const foreign = await call('bob', 'PUT', '/addresses/777', { name: 'alice', city: 'Kiel', postalCode: '24103' })
    expect(foreign.status).toBe(403)
    expect(foreign.body.errors[0].error).toBe('RULE_DENIED')
    const created = await call('bob', 'PUT', '/addresses/777', { name: 'bob', city: 'Kiel', postalCode: '24103' })
    expect(created.status, created.text).toBe(201)
    expect(created.headers.get('location')).toBe('/addresses/777')
    expect((await call('bob', 'PUT', '/addresses/777', { city: 'Bonn', postalCode: '53111' })).status).toBe(200)
    expect((await call('bob', 'PUT', `/addresses/${addressIds.carol}`, { city: 'Bonn', postalCode: '53111' })).status).toBe(403)
    expect((await call('bob', 'PATCH', `/addresses/${addressIds.alice}`, { city: 'Bonn' })).status).toBe(404)
    expect((await call('bob', 'DELETE', `/addresses/${addressIds.carol}`)).status).toBe(403)
    expect((await call('bob', 'DELETE', '/addresses/777')).status).toBe(204)
    expect((await call('admin', 'GET', `/addresses/${addressIds.carol}`)).body.city).toBe('Public')
  })

  it('GraphQL, the feed\'s replay, rqs export --url and the REST list hold the same students for each caller', async () => {
    for (const who of WHO) {
      const rest = names((await call(who, 'GET', '/students', undefined, V2)).body)
      const graphql = await gql(server.origin, '{ students(first: 100) { nodes { firstName } } }', undefined, as(who))
      expect(names(graphql.body.data.students.nodes), who).toEqual(rest)
      const feed = await connectFeed(`${server.origin}/events?services=students`, { ...as(who), 'last-event-id': '0' })
      const replayed = new Map<string, string>()
      try {
        await feed.waitForEvent('ready')
        for (const event of feed.events) {
          if (event.event === 'ready' || event.event === undefined) continue
          const data = JSON.parse(event.data)
          if (data.record === null) replayed.delete(String(data.id))
          else replayed.set(String(data.id), data.record.firstName)
        }
      } finally { feed.close() }
      expect([...replayed.values()].sort(), who).toEqual(rest)
      const token = tokens[who]
      const exported = await exportOf(['--url', server.origin, '--service', 'students', ...(token === undefined ? [] : ['--token', token])])
      expect(exported.code, exported.stderr).toBe(0)
      expect(names(exported.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Json)), who).toEqual(rest)
    }
    // A subscription replayed from the first change carries bob only his own students' changes.
    const sub = await subscribe(server.origin, 'subscription { studentsChanged(after: 0) { kind record { firstName lastName } } }', undefined, as('bob'))
    try {
      expect(sub.status).toBe(200)
      expect((await call('admin', 'POST', '/students', { firstName: 'marker', lastName: 'bob', age: 1 })).status).toBe(201)
      const until = async (): Promise<any[]> => {
        for (let n = 1; ; n++) {
          const results = await sub.next(n)
          if (results.at(-1)?.data?.studentsChanged?.record?.firstName === 'marker') return results
        }
      }
      const seen = (await until()).map((r) => r.data.studentsChanged.record?.lastName ?? null)
      expect(seen.length).toBeGreaterThan(1)
      expect(seen.filter((lastName) => lastName !== 'bob' && lastName !== null)).toEqual([])
    } finally { sub.close() }
    const denied = await gql(server.origin, 'mutation { createStudent(input: {firstName: "x", lastName: "alice", age: 1}) { outcome } }', undefined, as('bob'))
    expect(denied.body.errors?.[0]?.extensions?.code, denied.text).toBe('RULE_DENIED')
  })

  it('the listing says which operations each caller may attempt on the built-in collections', async () => {
    const listing = await call('bob', 'GET', '/collections')
    expect(listing.status).toBe(200)
    const students = (listing.body.items as Json[]).find((c) => c.name === 'students')
    expect(students?.operations).toBeDefined()
    const anonymous = ((await call('anonymous', 'GET', '/collections')).body.items as Json[]).find((c) => c.name === 'students')
    expect(anonymous?.operations).not.toContain('create')
    // The API description names the refusal where rules can refuse.
    const doc = (await call('admin', 'GET', '/openapi.json')).body
    expect(Object.keys(doc.paths['/students'].post.responses)).toContain('403')
  })

  it('keeps a v1 Idempotency-Key\'s answer per caller: another caller\'s replay is a write of its own', async () => {
    const key = { 'idempotency-key': `k-${Math.random()}` }
    const first = await call('alice', 'POST', '/students', { firstName: 'keyed', lastName: 'alice', age: 9 }, key)
    expect(first.status, first.text).toBe(201)
    const again = await call('alice', 'POST', '/students', { firstName: 'keyed', lastName: 'alice', age: 9 }, key)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
    const other = await call('bob', 'POST', '/students', { firstName: 'keyed', lastName: 'bob', age: 9 }, key)
    expect(other.status, other.text).toBe(201)
    expect(other.headers.get('idempotent-replayed')).toBeNull()
    expect(other.body.body.lastName).toBe('bob')
  })
}

/** `rqs export --url` run in this process, its output kept. */
async function exportOf (argv: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  const stdout = new PassThrough()
  let out = ''
  stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
  let err = ''
  const io: CommandIO = { stdin: new PassThrough(), stdout, stderr: { write: (text: string) => { err += text; return true } } as CommandIO['stderr'], env: {} }
  const code = await runExport(argv, io)
  return { code, stdout: out, stderr: err }
}
