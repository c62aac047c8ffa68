import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveConfig, type Config } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { generateToken, tokenEntry } from '../../../src/http/security/tokens.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { security } from '../../http/security/helpers.js'
import { declarationFiles } from '../collections/fixture.js'

/**
 * A `filter=` text is read once per collection (its routes keep the checked
 * expression): the same text sent again answers the records as they are
 * now, a collection whose fields read the text otherwise answers its own,
 * and rules narrow each caller's list whatever was read before. Over HTTP,
 * on memory and SQLite (the cache sits above the stores).
 */
const files = declarationFiles()

const COLLECTIONS = {
  collections: {
    books: { schema: { type: 'object', properties: { title: { type: 'string' }, year: { type: 'integer' } }, required: ['title', 'year'] } },
    // `year` is text here: `year = 1965` compares text with a number, which this collection refuses.
    films: { schema: { type: 'object', properties: { title: { type: 'string' }, year: { type: 'string' } }, required: ['title', 'year'] } },
    // Without `year` at all.
    songs: { schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } },
    notes: {
      schema: { type: 'object', properties: { title: { type: 'string' }, stars: { type: 'integer' }, author: { type: 'string', 'x-owner': true } }, required: ['title', 'stars'] },
      rules: { list: 'author = @request.auth.sub', view: 'author = @request.auth.sub', create: '@request.auth.sub != null' }
    }
  }
}

function filterCacheSuite (storeOf: () => Config['store'] | undefined): void {
  let server: RunningServer
  const tokens: Record<string, string> = {}
  const call = async (method: string, path: string, options: { json?: unknown, who?: string } = {}): Promise<Awaited<ReturnType<typeof request>>> =>
    await request(`${server.origin}${path}`, { method, ...(options.json === undefined ? {} : { json: options.json }), headers: options.who === undefined ? {} : { authorization: `Bearer ${tokens[options.who] as string}` } })
  const f = (expression: string): string => `filter=${encodeURIComponent(expression)}`
  const titles = async (path: string, who?: string): Promise<string[]> => {
    const res = await call('GET', path, { who })
    expect(res.status, res.text).toBe(200)
    return (res.body.items as Array<{ title: string }>).map((r) => r.title).sort()
  }

  beforeAll(async () => {
    const entries = ['alice', 'bob'].map((name) => {
      tokens[name] = generateToken()
      return tokenEntry(tokens[name] as string, name, ['read', 'write'], { roles: [] })
    })
    const tokensPath = join(files.dir, `tokens-${Math.random().toString(36).slice(2)}.json`)
    await writeFile(tokensPath, JSON.stringify({ tokens: entries }))
    const collections = fromFile(files.write(`filter-cache-${Math.random().toString(36).slice(2)}.json`, COLLECTIONS), '--collections')
    const store = storeOf()
    server = await startServer({ collections, security: security({ authTokensFile: tokensPath }), ...(store === undefined ? {} : { store }) })
    const created = async (path: string, json: unknown, who = 'alice'): Promise<void> => {
      const res = await call('POST', path, { json, who })
      expect(res.status, res.text).toBe(201)
    }
    await created('/books', [{ title: 'Dune', year: 1965 }, { title: '1984', year: 1949 }, { title: 'Neuromancer', year: 1984 }])
    await created('/films', [{ title: 'Dune', year: '1965' }])
    await created('/songs', [{ title: 'Help!' }])
    await created('/notes', [{ title: 'a-3', stars: 3 }, { title: 'a-5', stars: 5 }], 'alice')
    await created('/notes', [{ title: 'b-3', stars: 3 }], 'bob')
  })
  afterAll(async () => { await (server as RunningServer | undefined)?.close() })

  it('answers a repeated filter with the records as they are after a write', async () => {
    const path = `/books?limit=50&${f('year = 1965 || year = 1984')}`
    expect(await titles(path, 'alice')).toEqual(['Dune', 'Neuromancer'])
    expect((await call('POST', '/books', { json: { title: 'Dune Messiah', year: 1965 }, who: 'alice' })).status).toBe(201)
    expect(await titles(path, 'alice')).toEqual(['Dune', 'Dune Messiah', 'Neuromancer'])
    expect((await call('DELETE', `/books?${f("title = 'Dune'")}`, { who: 'alice' })).status).toBe(200)
    expect(await titles(path, 'alice')).toEqual(['Dune Messiah', 'Neuromancer'])
  })

  it('reads the same text against each collection\'s own fields', async () => {
    const text = f('year = 1965')
    // Refused where `year` is text or missing, before and after the books read it.
    for (let round = 0; round < 2; round++) {
      const films = await call('GET', `/films?limit=50&${text}`, { who: 'alice' })
      expect(films.status, films.text).toBe(400)
      const songs = await call('GET', `/songs?limit=50&${text}`, { who: 'alice' })
      expect(songs.status, songs.text).toBe(400)
      expect(songs.text).toContain('year')
      expect((await titles(`/books?limit=50&${text}`, 'alice')).length).toBeGreaterThan(0)
      expect(await titles(`/films?limit=50&${f("year = '1965'")}`, 'alice')).toEqual(['Dune'])
    }
  })

  it('narrows each caller\'s list by the rules, whoever sent the same filter before', async () => {
    const path = `/notes?limit=50&${f('stars = 3 || stars = 5')}`
    for (let round = 0; round < 2; round++) {
      expect(await titles(path, 'alice')).toEqual(['a-3', 'a-5'])
      expect(await titles(path, 'bob')).toEqual(['b-3'])
    }
    expect(await titles(`/notes?limit=50&${f('stars = 3')}`, 'bob')).toEqual(['b-3'])
    expect(await titles(`/notes?limit=50&${f('stars = 3')}`, 'alice')).toEqual(['a-3'])
  })
}

describe('filter cache over HTTP, memory store', () => { filterCacheSuite(() => undefined) })
describe('filter cache over HTTP, SQLite store', () => { filterCacheSuite(() => resolveConfig({ store: `sqlite:${join(files.dir, `filter-cache-${Math.random().toString(36).slice(2)}.db`)}` }, {}).store) })
