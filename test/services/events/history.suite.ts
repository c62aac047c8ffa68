import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { generateToken, tokenEntry, type Scope } from '../../../src/http/security/tokens.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { security } from '../../http/security/helpers.js'
import { declarationFiles } from '../collections/fixture.js'

/**
 * A record's recent changes (`GET /events/history`), the same on every store
 * (history.test.ts: memory and SQLite; history-pg.test.ts: PostgreSQL): one
 * record's creates, replaces and deletes among other records' changes, newest
 * first, bounded by `limit`; in each caller's view as the feed is (rules,
 * hidden fields, the `read` scope); integer and UUID ids; bad input refused
 * with the catalogue's codes.
 */
const files = declarationFiles()

const COLLECTIONS = {
  collections: {
    notes: {
      schema: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          public: { type: 'boolean' },
          author: { type: 'string', 'x-owner': true },
          email: { type: 'string', 'x-read': 'author = @request.auth.sub' }
        },
        required: ['title']
      },
      rules: {
        list: 'public = true || author = @request.auth.sub',
        view: 'public = true || author = @request.auth.sub',
        create: '@request.auth.sub != null',
        update: 'author = @request.auth.sub',
        delete: 'author = @request.auth.sub'
      }
    },
    tags: { ids: 'uuid', schema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] } }
  }
}

type Json = Record<string, any>
type Who = 'anonymous' | 'alice' | 'bob' | 'writer'
/** An entry without its time (which differs from run to run): [seq, event, id, record]. */
type Entry = [number, string, unknown, Json | null]

export function historySuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  const tokens: Partial<Record<Who, string>> = {}
  const call = async (who: Who, method: string, path: string, json?: unknown): Promise<{ status: number, body: Json, text: string }> => {
    const token = tokens[who]
    return await request(`${server.origin}${path}`, { method, ...(json === undefined ? {} : { json }), headers: token === undefined ? {} : { authorization: `Bearer ${token}` } })
  }
  const write = async (who: Who, method: string, path: string, json?: unknown): Promise<Json> => {
    const res = await call(who, method, path, json)
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300)
    return res.body
  }
  const history = async (who: Who, query: string): Promise<Entry[]> => {
    const res = await call(who, 'GET', `/events/history?${query}`)
    expect(res.status, res.text).toBe(200)
    for (const item of res.body.items as Json[]) expect(Date.parse(item.data.at as string), 'at is a time').not.toBeNaN()
    return (res.body.items as Json[]).map((item) => [item.seq, item.event, item.data.id, item.data.record])
  }
  const ids: Record<string, number | string> = {}

  beforeAll(async () => {
    const store = storeOf()
    const entries = ([['alice', ['read', 'write']], ['bob', ['read', 'write']], ['writer', ['write']]] as Array<[Who, Scope[]]>).map(([name, scopes]) => {
      tokens[name] = generateToken()
      return tokenEntry(tokens[name], name, scopes)
    })
    const tokensPath = join(files.dir, `tokens-${Math.random().toString(36).slice(2)}.json`)
    await writeFile(tokensPath, JSON.stringify({ tokens: entries }))
    const collections = fromFile(files.write(`history-${Math.random().toString(36).slice(2)}.json`, COLLECTIONS), '--collections')
    server = await startServer({ collections, security: security({ authTokensFile: tokensPath, authPublicRead: true }), ...(store === undefined ? {} : { store }) })

    // The record followed (seq 1, 3, 4, 7), among others' changes.
    ids.followed = (await write('alice', 'POST', '/notes', { title: 'v1', public: true, email: 'a@example.com' })).id // 1
    ids.other = (await write('alice', 'POST', '/notes', { title: 'other', public: true })).id // 2
    await write('alice', 'PUT', `/notes/${ids.followed}`, { title: 'v2', public: true, email: 'a@example.com' }) // 3
    await write('alice', 'PATCH', `/notes/${ids.followed}`, { title: 'v3' }) // 4
    await write('alice', 'PATCH', `/notes/${ids.other}`, { title: 'other 2' }) // 5
    ids.tag = (await write('alice', 'POST', '/tags', { label: 'red' })).id // 6
    await write('alice', 'DELETE', `/notes/${ids.followed}`) // 7
    await write('alice', 'PUT', `/tags/${ids.tag}`, { label: 'crimson' }) // 8
    // Public, then private, then public again (seq 9 … 12): what bob may see comes and goes.
    ids.flips = (await write('alice', 'POST', '/notes', { title: 'shown', public: true })).id // 9
    await write('alice', 'PATCH', `/notes/${ids.flips}`, { public: false }) // 10
    await write('alice', 'PATCH', `/notes/${ids.flips}`, { title: 'hidden' }) // 11
    await write('alice', 'PATCH', `/notes/${ids.flips}`, { public: true }) // 12
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  it('lists one record\'s creates, replaces and delete, newest first, in the feed\'s event JSON, and no other record\'s', async () => {
    const id = ids.followed as number
    const full = (title: string): Json => ({ id, title, public: true, author: 'alice', email: 'a@example.com' })
    expect(await history('alice', `collection=notes&id=${id}`)).toEqual([
      [7, 'notes.deleted', id, null],
      [4, 'notes.replaced', id, full('v3')],
      [3, 'notes.replaced', id, full('v2')],
      [1, 'notes.created', id, full('v1')]
    ])
    expect(await history('alice', `collection=notes&id=${ids.other as number}`)).toEqual([
      [5, 'notes.replaced', ids.other, { id: ids.other, title: 'other 2', public: true, author: 'alice' }],
      [2, 'notes.created', ids.other, { id: ids.other, title: 'other', public: true, author: 'alice' }]
    ])
    // A record that never was: nothing, not an error.
    expect(await history('alice', 'collection=notes&id=999')).toEqual([])
  })

  it('keeps the newest `limit` (20 without it, at most 100)', async () => {
    const id = ids.followed as number
    expect((await history('alice', `collection=notes&id=${id}&limit=2`)).map(([seq]) => seq)).toEqual([7, 4])
    expect((await history('alice', `collection=notes&id=${id}&limit=1`)).map(([seq]) => seq)).toEqual([7])
    const busy = (await write('bob', 'POST', '/notes', { title: 'busy 0', public: true })).id as number
    for (let i = 1; i <= 21; i++) await write('bob', 'PATCH', `/notes/${busy}`, { title: `busy ${i}` })
    const titles = (entries: Entry[]): string[] => entries.map(([, , , record]) => record?.title as string)
    const answer = await history('bob', `collection=notes&id=${busy}`)
    expect(answer).toHaveLength(20)
    expect(titles(answer).slice(0, 2)).toEqual(['busy 21', 'busy 20'])
    expect(titles(answer).at(-1)).toBe('busy 2')
    expect(titles(await history('bob', `collection=notes&id=${busy}&limit=100`))).toHaveLength(22)
  })

  it('answers each caller what a stream of the collection would carry: records in view, hidden fields left out', async () => {
    const id = ids.followed as number
    // Bob sees the public note, without its author's email.
    expect(await history('bob', `collection=notes&id=${id}`)).toEqual([
      [7, 'notes.deleted', id, null],
      [4, 'notes.replaced', id, { id, title: 'v3', public: true, author: 'alice' }],
      [3, 'notes.replaced', id, { id, title: 'v2', public: true, author: 'alice' }],
      [1, 'notes.created', id, { id, title: 'v1', public: true, author: 'alice' }]
    ])
    // The newest change alone: the one before it says that a stream would have followed the record to its delete.
    expect(await history('bob', `collection=notes&id=${id}&limit=1`)).toEqual([[7, 'notes.deleted', id, null]])
    // Going private reaches bob as a delete; the change while out of view not at all.
    const flips = ids.flips as number
    const note = (title: string, pub: boolean): Json => ({ id: flips, title, public: pub, author: 'alice' })
    const seen: Entry[] = [[12, 'notes.replaced', flips, note('hidden', true)], [10, 'notes.deleted', flips, null], [9, 'notes.created', flips, note('shown', true)]]
    expect(await history('bob', `collection=notes&id=${flips}`)).toEqual(seen)
    expect(await history('anonymous', `collection=notes&id=${flips}`)).toEqual(seen)
    expect(await history('alice', `collection=notes&id=${flips}`)).toEqual([
      [12, 'notes.replaced', flips, note('hidden', true)], [11, 'notes.replaced', flips, note('hidden', false)],
      [10, 'notes.replaced', flips, note('shown', false)], [9, 'notes.created', flips, note('shown', true)]
    ])
    // A private record: nothing for others, as on the feed.
    const secret = (await write('alice', 'POST', '/notes', { title: 'secret', public: false })).id as number
    expect(await history('bob', `collection=notes&id=${secret}`)).toEqual([])
    expect(await history('alice', `collection=notes&id=${secret}`)).toHaveLength(1)
    // A token without the read scope is refused as on the feed.
    const feed = await call('writer', 'GET', '/events?services=notes')
    const refused = await call('writer', 'GET', `/events/history?collection=notes&id=${id}`)
    expect(refused.status).toBe(feed.status)
    expect(refused.status).toBe(403)
    expect(refused.body.type).toBe(feed.body.type)
  })

  it('reads UUID ids in any case', async () => {
    const tag = ids.tag as string
    const expected: Entry[] = [[8, 'tags.replaced', tag, { id: tag, label: 'crimson' }], [6, 'tags.created', tag, { id: tag, label: 'red' }]]
    expect(await history('anonymous', `collection=tags&id=${tag}`)).toEqual(expected)
    expect(await history('anonymous', `collection=tags&id=${tag.toUpperCase()}`)).toEqual(expected)
  })

  it('refuses bad input with a 400 and the catalogue\'s code', async () => {
    const refused = async (query: string): Promise<string> => {
      const res = await call('alice', 'GET', `/events/history?${query}`)
      expect(res.status, `${query}: ${res.text}`).toBe(400)
      return (res.body.type as string).replace('/errors/', '')
    }
    expect(await refused('collection=novels&id=1')).toBe('FEED_SERVICE_UNKNOWN')
    expect(await refused('collection=notes&id=abc')).toBe('INVALID_ID')
    expect(await refused('collection=notes&id=-1')).toBe('INVALID_ID')
    expect(await refused('collection=notes&id=01')).toBe('INVALID_ID')
    expect(await refused('collection=notes&id=9223372036854775808')).toBe('INVALID_ID')
    expect(await refused('collection=tags&id=7')).toBe('INVALID_ID')
    expect(await refused('collection=notes&id=1&limit=0')).toBe('VALIDATION_FAILED')
    expect(await refused('collection=notes&id=1&limit=101')).toBe('VALIDATION_FAILED')
    expect(await refused('collection=notes&id=1&limit=ten')).toBe('VALIDATION_FAILED')
    expect(await refused('collection=notes')).toBe('VALIDATION_FAILED')
    expect(await refused('collection=notes&id=1&services=notes')).toBe('INVALID_QUERY')
    expect((await call('alice', 'POST', '/events/history?collection=notes&id=1')).status).toBe(405)
  })
}
