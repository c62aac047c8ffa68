import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Api, ApiResult, RequestOptions } from '../../../web/app/api.js'
import { compareIds, Listing, type ListQuery } from '../../../web/app/listing.js'
import { STUDENTS } from '../../../web/app/resources.js'

/**
 * The web app's list (web/app/listing.ts) against a scripted service: it
 * finds whether the service pages and queries itself (server mode) or
 * answers whole arrays (client mode, where it pages, sorts and filters).
 */
type Answer = (url: string) => ApiResult

/** An Api whose answers a test writes, recording the URLs asked. */
function scripted (answer: Answer): { api: Api, asked: string[] } {
  const asked: string[] = []
  const api = { request: async (_method: string, url: string, _opts: RequestOptions) => { asked.push(url); return answer(url) } }
  return { api: api as unknown as Api, asked }
}

const ok = (body: unknown, headers: Record<string, string> = {}): ApiResult => ({ status: 200, ok: true, headers: new Headers(headers), body })
const query = (over: Partial<ListQuery> = {}): ListQuery => ({ q: '', limit: 2, filters: {}, page: 0, ...over })
const ENDPOINT = { url: '/students', accept: 'application/json' }

const PEOPLE = [
  { id: 10, firstName: 'Ada', lastName: 'Lovelace', age: 36 },
  { id: 2, firstName: 'alan', lastName: 'Turing', age: 41 },
  { id: 3, firstName: 'Grace', lastName: 'Hopper', age: 85 },
  { id: 1, firstName: 'Édouard', lastName: 'Lucas', age: 49 }
]

describe('the web app\'s list', () => {
  beforeEach(() => { vi.stubGlobal('location', { href: 'http://127.0.0.1:8080/app/students' }) })
  afterEach(() => { vi.unstubAllGlobals() })

  it('orders ids as numbers, exactly beyond 2^53', () => {
    expect(['10', '9', '100', '9007199254740993', '9007199254740992'].sort(compareIds)).toEqual(['9', '10', '100', '9007199254740992', '9007199254740993'])
  })

  it('pages, sorts, searches and filters a whole array itself (client mode)', async () => {
    const { api, asked } = scripted(() => ok(PEOPLE))
    const listing = new Listing(api, STUDENTS, ENDPOINT)
    expect(await listing.setQuery(query())).toEqual({ ok: true })
    expect(listing.mode).toBe('client')
    expect(asked).toEqual(['/students?limit=2&count=true'])
    const ids = (): string[] => listing.page().rows.map((r) => r.id)
    expect(ids()).toEqual(['1', '2'])
    expect(listing.page()).toMatchObject({ offset: 0, total: 4, hasPrev: false, hasNext: true })
    await listing.next()
    expect(ids()).toEqual(['3', '10'])
    expect(listing.position()).toEqual({ cursor: '1', page: 1 })
    // Sorting by text ignores case (ties by id); a search is a case-insensitive substring of a text field.
    await listing.setQuery(query({ sort: { field: 'firstName', desc: false }, limit: 10 }))
    expect(ids()).toEqual(['10', '2', '1', '3'])
    await listing.setQuery(query({ sort: { field: 'age', desc: true }, limit: 10 }))
    expect(ids()).toEqual(['3', '1', '2', '10'])
    await listing.setQuery(query({ q: 'LA', limit: 10 }))
    expect(ids()).toEqual(['2', '10'])
    await listing.setQuery(query({ filters: { 'age[gte]': '41', 'lastName[contains]': 'u' }, limit: 10 }))
    expect(ids()).toEqual(['1', '2'])
    // Loaded once: the queries were answered here.
    expect(asked).toHaveLength(1)
  })

  it('applies changes it hears of to the records it holds (client mode)', async () => {
    const { api } = scripted(() => ok(PEOPLE))
    const listing = new Listing(api, STUDENTS, ENDPOINT)
    await listing.setQuery(query({ limit: 10 }))
    expect(listing.apply('deleted', '2')).toBe(false)
    expect(listing.apply('created', '4', { id: '4', firstName: 'Kurt', lastName: 'Gödel', age: 71 })).toBe(false)
    expect(listing.page().rows.map((r) => r.id)).toEqual(['1', '3', '4', '10'])
    expect(listing.find('4')?.firstName).toBe('Kurt')
  })

  it('follows the service\'s own pages and counts (server mode)', async () => {
    const { api, asked } = scripted((url) => url.includes('cursor=c2')
      ? ok({ items: [PEOPLE[2]] }, { 'x-total-count': '3' })
      : ok({ items: PEOPLE.slice(0, 2), next: '/students?limit=2&cursor=c2&q=a' }, { 'x-total-count': '3' }))
    const listing = new Listing(api, STUDENTS, ENDPOINT)
    await listing.setQuery(query({ q: ' a ', sort: { field: 'age', desc: true }, filters: { 'age[gte]': '18', 'age[lte]': '' } }))
    expect(listing.mode).toBe('server')
    expect(asked).toEqual(['/students?limit=2&count=true&sort=-age&q=a&age[gte]=18'])
    expect(listing.page()).toMatchObject({ offset: 0, total: 3, hasPrev: false, hasNext: true })
    await listing.next()
    expect(asked[1]).toBe('/students?limit=2&cursor=c2&q=a')
    expect(listing.page()).toMatchObject({ rows: [{ id: '3' }], offset: 2, total: 3, hasPrev: true, hasNext: false })
    expect(listing.position()).toEqual({ cursor: 'c2', page: 1 })
    await listing.previous()
    expect(asked[2]).toBe(asked[0])
    // A change may move records between pages: the page must be read again.
    expect(listing.apply('deleted', '10')).toBe(true)
    expect(listing.page()).toMatchObject({ rows: [{ id: '2' }], total: 2 })
  })

  it('walks every page once when the service pages but does not understand the query', async () => {
    const { api, asked } = scripted((url) => url.includes('cursor=p2') ? ok({ items: PEOPLE.slice(2) }) : ok({ items: PEOPLE.slice(0, 2), next: '/students?limit=500&cursor=p2' }))
    const listing = new Listing(api, STUDENTS, ENDPOINT)
    await listing.setQuery(query({ limit: 10 }))
    expect(listing.mode).toBe('client')
    expect(asked).toEqual(['/students?limit=10&count=true', '/students?limit=500', '/students?limit=500&cursor=p2'])
    expect(listing.page().total).toBe(4)
  })

  it('hands on the service\'s problem, and drops an answer a newer query overtook', async () => {
    const problem = { status: 400, errors: [] }
    const refused = new Listing(scripted(() => ({ status: 400, ok: false, headers: new Headers(), problem })).api, STUDENTS, ENDPOINT)
    expect(await refused.setQuery(query())).toEqual({ ok: false, problem })

    let release: (() => void) | undefined
    const slow: Api = { request: async (_m: string, url: string) => {
      if (url.includes('q=old')) await new Promise<void>((resolve) => { release = resolve })
      return ok(PEOPLE)
    } } as unknown as Api
    const listing = new Listing(slow, STUDENTS, ENDPOINT)
    const first = listing.setQuery(query({ q: 'old' }))
    const second = await listing.setQuery(query({ q: 'new' }))
    release?.()
    expect(second).toEqual({ ok: true })
    expect(await first).toEqual({ ok: false, stale: true })
  })

  it('a refresh while a new query\'s page is on its way asks for the new query, not the page still shown (server mode)', async () => {
    // The page shown answers at once; the search's answer waits until the test lets it go.
    let release: (() => void) | undefined
    const { api, asked } = scripted((url) => ok({ items: url.includes('q=nobody') ? [] : PEOPLE.slice(0, 2) }, { 'x-total-count': url.includes('q=nobody') ? '0' : '4' }))
    const held: Api = { request: async (method: string, url: string, opts: RequestOptions) => {
      if (url.includes('q=nobody') && release === undefined) await new Promise<void>((resolve) => { release = resolve })
      return await api.request(method as 'GET', url, opts)
    } } as unknown as Api
    const listing = new Listing(held, STUDENTS, ENDPOINT)
    await listing.setQuery(query())
    expect(listing.mode).toBe('server')
    const search = listing.setQuery(query({ q: 'nobody' }))
    // A change heard from the feed meanwhile: the refresh must not read the old query's page again.
    const refreshed = await listing.refresh()
    release?.()
    expect(await search).toEqual({ ok: false, stale: true })
    expect(refreshed).toEqual({ ok: true })
    expect(asked.at(-1)).toContain('q=nobody')
    expect(listing.page()).toMatchObject({ rows: [], total: 0 })
  })
})
