import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { generateToken, tokenEntry, type Scope } from '../../../src/http/security/tokens.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { security } from '../../http/security/helpers.js'
import { declarationFiles } from './fixture.js'

/**
 * Record rules (docs/rules.md) over REST, as an attacker would try them, alike
 * on every store (rules.test.ts: memory and SQLite; rules-pg.test.ts:
 * PostgreSQL): anonymous, alice, bob, an editor and an admin × notes owned by
 * their author × list, get, create, update, patch, delete, aggregate, expand,
 * bulk, filtered writes, batches, streams and idempotent replays.
 */
const files = declarationFiles()

export const NOTES = {
  collections: {
    notes: {
      schema: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          public: { type: 'boolean' },
          stars: { type: 'integer' },
          author: { type: 'string', 'x-owner': true },
          email: { type: 'string', 'x-read': 'author = @request.auth.sub' }
        },
        required: ['title']
      },
      rules: {
        list: "public = true || author = @request.auth.sub || @request.auth.roles ?= 'editor'",
        view: "public = true || author = @request.auth.sub || @request.auth.roles ?= 'editor'",
        create: '@request.auth.sub != null && (@request.body.stars = null || @request.body.stars <= 5)',
        update: 'author = @request.auth.sub',
        delete: 'author = @request.auth.sub'
      }
    },
    comments: {
      schema: { type: 'object', properties: { text: { type: 'string' }, note: { type: 'integer', 'x-references': 'notes', 'x-on-delete': 'cascade' } }, required: ['text'] }
    }
  }
}

type Json = Record<string, any>
type Who = 'anonymous' | 'alice' | 'bob' | 'editor' | 'admin'

export function rulesSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  let base: string
  const tokens: Partial<Record<Who, string>> = {}
  const call = async (who: Who, method: string, path: string, json?: unknown, headers: Record<string, string> = {}): Promise<{ status: number, body: Json, text: string, headers: Headers }> => {
    const token = tokens[who]
    return await request(`${base}${path}`, { method, ...(json === undefined ? {} : { json }), headers: { ...headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) } })
  }
  const titles = (items: Json[]): string[] => items.map((n) => n.title as string).sort()
  const ids: Record<string, number> = {}

  beforeAll(async () => {
    const store = storeOf()
    const entries = ([['alice', ['read', 'write'], []], ['bob', ['read', 'write'], []], ['editor', ['read', 'write'], ['editor']], ['admin', ['read', 'write', 'admin'], []]] as Array<[Who, Scope[], string[]]>).map(([name, scopes, roles]) => {
      const token = generateToken()
      tokens[name] = token
      return tokenEntry(token, name, scopes, { roles })
    })
    const tokensPath = join(files.dir, `tokens-${Math.random().toString(36).slice(2)}.json`)
    await writeFile(tokensPath, JSON.stringify({ tokens: entries }))
    const collections = fromFile(files.write(`rules-${Math.random().toString(36).slice(2)}.json`, NOTES), '--collections')
    server = await startServer({ collections, security: security({ authTokensFile: tokensPath, authPublicRead: true }), ...(store === undefined ? {} : { store }) })
    base = server.origin
    for (const [who, title, pub] of [['alice', 'a-private', false], ['alice', 'a-public', true], ['bob', 'b-private', false]] as Array<[Who, string, boolean]>) {
      const created = await call(who, 'POST', '/notes', { title, public: pub, stars: 3, email: `${who}@example.com` })
      expect(created.status, created.text).toBe(201)
      expect(created.body.author).toBe(who)
      ids[title] = created.body.id
    }
    expect((await call('alice', 'POST', '/comments', { text: 'on a-private', note: ids['a-private'] })).status).toBe(201)
    expect((await call('alice', 'POST', '/comments', { text: 'on a-public', note: ids['a-public'] })).status).toBe(201)
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  it('lists only what each caller may list, counts and pages exactly, and hides the email from all but its author', async () => {
    const expected: Record<Who, string[]> = {
      anonymous: ['a-public'],
      alice: ['a-private', 'a-public'],
      bob: ['a-public', 'b-private'],
      editor: ['a-private', 'a-public', 'b-private'],
      admin: ['a-private', 'a-public', 'b-private']
    }
    for (const who of Object.keys(expected) as Who[]) {
      const list = await call(who, 'GET', '/notes?count=true&sort=title')
      expect(list.status, list.text).toBe(200)
      expect(titles(list.body.items), who).toEqual(expected[who])
      expect(list.headers.get('x-total-count'), who).toBe(String(expected[who].length))
      for (const note of list.body.items as Json[]) {
        expect('email' in note, `${who} sees ${String(note.title)}'s email`).toBe(who === 'admin' || note.author === who)
      }
      // Paging one at a time walks the same records (the rule is in the query, cursors stay exact).
      const walked: string[] = []
      let next: string | undefined = '/notes?limit=1&sort=title'
      while (next !== undefined) {
        const page: Json = (await call(who, 'GET', next.replace(base, ''))).body
        walked.push(...titles(page.items))
        next = page.next
      }
      expect(walked, who).toEqual(expected[who])
    }
  })

  it('answers 404 for a record the caller may not view, and the record without hidden fields otherwise', async () => {
    expect((await call('bob', 'GET', `/notes/${ids['a-private']}`)).status).toBe(404)
    expect((await call('anonymous', 'GET', `/notes/${ids['b-private']}`)).status).toBe(404)
    expect((await call('bob', 'GET', `/notes/${ids['b-private']}`)).body.email).toBe('bob@example.com')
    const seen = await call('bob', 'GET', `/notes/${ids['a-public']}`)
    expect(seen.status).toBe(200)
    expect(seen.body).not.toHaveProperty('email')
    expect((await call('editor', 'GET', `/notes/${ids['a-private']}`)).body).not.toHaveProperty('email')
    expect((await call('admin', 'GET', `/notes/${ids['a-private']}`)).body.email).toBe('alice@example.com')
  })

  it('never lets a hidden field decide what a list holds (filter, search)', async () => {
    expect((await call('bob', 'GET', `/notes?filter=${encodeURIComponent("email = 'alice@example.com'")}`)).body.items).toEqual([])
    expect((await call('bob', 'GET', '/notes?q=alice@example')).body.items).toEqual([])
    expect(titles((await call('alice', 'GET', `/notes?filter=${encodeURIComponent("email = 'alice@example.com'")}`)).body.items)).toEqual(['a-private', 'a-public'])
  })

  it('streams (NDJSON, CSV) hold what the page holds', async () => {
    const ndjson = await call('bob', 'GET', '/notes?sort=title', undefined, { accept: 'application/x-ndjson' })
    const lines = ndjson.text.trim().split('\n').map((line) => JSON.parse(line) as Json)
    expect(titles(lines)).toEqual(['a-public', 'b-private'])
    expect(lines.find((n) => n.title === 'a-public')).not.toHaveProperty('email')
    const csv = await call('bob', 'GET', '/notes?sort=title', undefined, { accept: 'text/csv' })
    expect(csv.text).not.toContain('alice@example.com')
    expect(csv.text).not.toContain('a-private')
    expect(csv.text).toContain('bob@example.com')
  })

  it('creates with the owner from the caller; refuses another owner, a failed create rule and anonymous writers', async () => {
    expect((await call('anonymous', 'POST', '/notes', { title: 'x' })).status).toBe(401)
    const stolen = await call('bob', 'POST', '/notes', { title: 'as alice', author: 'alice' })
    expect(stolen.status).toBe(403)
    expect(stolen.body.errors[0].error).toBe('OWNER_MISMATCH')
    const tooMany = await call('bob', 'POST', '/notes', { title: 'six stars', stars: 6 })
    expect(tooMany.status).toBe(403)
    expect(tooMany.body.errors[0].error).toBe('RULE_DENIED')
    const own = await call('bob', 'POST', '/notes', { title: 'b-own', author: 'bob', stars: 1 })
    expect(own.status, own.text).toBe(201)
    expect(own.body.author).toBe('bob')
    expect((await call('bob', 'DELETE', `/notes/${own.body.id as number}`)).status).toBe(204)
  })

  it('refuses bob every change to alice\'s notes: 404 where he may not view them, 403 RULE_DENIED where he may', async () => {
    for (const method of ['PUT', 'PATCH']) {
      expect((await call('bob', method, `/notes/${ids['a-private']}`, { title: 'hacked' })).status, method).toBe(404)
      const refused = await call('bob', method, `/notes/${ids['a-public']}`, { title: 'hacked' })
      expect(refused.status, method).toBe(403)
      expect(refused.body.errors[0].error).toBe('RULE_DENIED')
      expect((await call('editor', method, `/notes/${ids['a-private']}`, { title: 'hacked' })).status, method).toBe(403)
    }
    expect((await call('bob', 'DELETE', `/notes/${ids['a-private']}`)).status).toBe(404)
    expect((await call('bob', 'DELETE', `/notes/${ids['a-public']}`)).status).toBe(403)
    expect((await call('admin', 'GET', `/notes/${ids['a-public']}`)).body.title).toBe('a-public')
  })

  it('lets the author update and patch but never change the owner; an admin passes every rule', async () => {
    const put = await call('alice', 'PUT', `/notes/${ids['a-public']}`, { title: 'a-public', public: true, stars: 4, email: 'alice@example.com' })
    expect(put.status, put.text).toBe(200)
    expect(put.body.author).toBe('alice')
    const moved = await call('alice', 'PATCH', `/notes/${ids['a-public']}`, { author: 'bob' })
    expect(moved.status).toBe(403)
    expect(moved.body.errors[0].error).toBe('OWNER_MISMATCH')
    expect((await call('alice', 'PUT', `/notes/${ids['a-public']}`, { title: 'a-public', author: 'bob' })).body.errors[0].error).toBe('OWNER_MISMATCH')
    const patched = await call('alice', 'PATCH', `/notes/${ids['a-public']}`, { stars: 5 }, { 'content-type': 'application/merge-patch+json' })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.body).toMatchObject({ stars: 5, author: 'alice' })
    expect((await call('admin', 'PATCH', `/notes/${ids['b-private']}`, { stars: 2 })).status).toBe(200)
  })

  it('aggregates count only what the caller may list, and group by a hidden field only where it is visible', async () => {
    const count = async (who: Who, query = ''): Promise<Json> => (await call(who, 'GET', `/notes/aggregate?count=true${query}`)).body
    expect((await count('anonymous')).groups).toEqual([{ key: {}, count: 1 }])
    expect((await count('bob')).groups).toEqual([{ key: {}, count: 2 }])
    expect((await count('admin')).groups).toEqual([{ key: {}, count: 3 }])
    expect((await count('bob', '&groupBy=email')).groups).toEqual([{ key: { email: 'bob@example.com' }, count: 1 }])
  })

  it('leaves unreadable targets out of expansions', async () => {
    const comments = (await call('bob', 'GET', '/comments?expand=note&sort=id')).body.items as Json[]
    expect(comments.map((c) => c.expand.note?.title ?? null)).toEqual([null, 'a-public'])
    expect(comments[1]?.expand.note).not.toHaveProperty('email')
    const alices = (await call('alice', 'GET', '/comments?expand=note&sort=id')).body.items as Json[]
    expect(alices.map((c) => c.expand.note?.email ?? null)).toEqual(['alice@example.com', 'alice@example.com'])
    // A filter through the reference sees only the notes the caller may list, and their readable fields.
    expect((await call('bob', 'GET', '/comments?note.title=a-private')).body.items).toEqual([])
    expect((await call('alice', 'GET', '/comments?note.title=a-private')).body.items).toHaveLength(1)
    expect((await call('bob', 'GET', '/comments?note.email=alice@example.com')).body.items).toEqual([])
    expect((await call('alice', 'GET', '/comments?note.email=alice@example.com')).body.items).toHaveLength(2)
  })

  it('refuses a bulk create, a filtered write and a batch whole when one item is refused', async () => {
    const before = (await call('admin', 'GET', '/notes?count=true')).headers.get('x-total-count')
    const bulk = await call('bob', 'POST', '/notes', [{ title: 'ok' }, { title: 'bad', author: 'alice' }])
    expect(bulk.status).toBe(403)
    expect((await call('admin', 'GET', '/notes?count=true')).headers.get('x-total-count')).toBe(before)
    const patchAll = await call('bob', 'PATCH', '/notes?all=true', { stars: 1 })
    expect(patchAll.status).toBe(403)
    expect(patchAll.body.errors[0].error).toBe('RULE_DENIED')
    expect((await call('bob', 'DELETE', '/notes?all=true')).status).toBe(403)
    // Bob's own records alone: allowed (and alice's private note is not even selected).
    expect((await call('bob', 'PATCH', '/notes?author=bob', { stars: 4 })).body).toEqual({ changed: 1 })
    expect((await call('bob', 'PATCH', '/notes?public=false', { stars: 4 })).body).toEqual({ changed: 1 })
    expect((await call('admin', 'GET', `/notes/${ids['a-private']}`)).body.stars).toBe(3)
    const batch = await call('bob', 'POST', '/batch', { requests: [
      { method: 'PATCH', url: `/notes/${ids['b-private']}`, body: { stars: 2 } },
      { method: 'PATCH', url: `/notes/${ids['a-public']}`, body: { stars: 1 } }
    ] })
    expect(batch.status).toBe(422)
    expect(batch.body.failed.errors[0].error).toBe('RULE_DENIED')
    expect((await call('bob', 'GET', `/notes/${ids['b-private']}`)).body.stars).toBe(4)
    const hidden = await call('bob', 'POST', '/batch', { requests: [{ method: 'GET', url: `/notes/${ids['a-private']}` }] })
    expect(hidden.body.failed.status).toBe(404)
    const read = await call('bob', 'POST', '/batch', { requests: [{ method: 'GET', url: `/notes/${ids['a-public']}` }] })
    expect(read.status).toBe(200)
    expect(read.body.responses[0].body).toMatchObject({ title: 'a-public' })
    expect(read.body.responses[0].body).not.toHaveProperty('email')
  })

  it('never serves one caller\'s kept answer to another replaying its Idempotency-Key', async () => {
    const key = { 'idempotency-key': `k-${Math.random()}` }
    const first = await call('alice', 'POST', '/notes', { title: 'keyed' }, key)
    expect(first.status).toBe(201)
    const again = await call('alice', 'POST', '/notes', { title: 'keyed' }, key)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body.id).toBe(first.body.id)
    const other = await call('bob', 'POST', '/notes', { title: 'keyed' }, key)
    expect(other.status).toBe(201)
    expect(other.headers.get('idempotent-replayed')).toBeNull()
    expect(other.body.author).toBe('bob')
    expect(other.body.id).not.toBe(first.body.id)
  })
}
