import type { Api } from './api.js'
import type { Problem } from './problem.js'
import { keepReferenceLabels, toRecord, type Rec, type ResourceSpec } from './resources.js'

export interface Sort {
  field: string
  desc: boolean
}

/** What the person asked to see: the querying issue's `q`, `sort`, `limit` and field filters, and where in the list. */
export interface ListQuery {
  q: string
  sort?: Sort
  limit: number
  /** API filter parameters (`age[gte]`, `firstName[contains]`, `active`) and their values. */
  filters: Record<string, string>
  /** Server mode: the cursor of the page shown (absent: the first page) and its index. */
  cursor?: string
  page: number
}

export interface Page {
  rows: Rec[]
  /** Position of the first row in the whole (filtered, sorted) list. */
  offset: number
  /** Records matching the query, when known. */
  total?: number
  hasPrev: boolean
  hasNext: boolean
}

export type Outcome = { ok: true } | { ok: false, problem: Problem } | { ok: false, stale: true }

/**
 * `server`: the collection pages, sorts and filters itself (it answered
 * `{items, next}` and honoured `count=true` with X-Total-Count).
 * `client`: it answered the whole collection as an array, or pages without
 * understanding the query, so the page loads every record once and pages,
 * sorts and filters here.
 */
export type Mode = 'server' | 'client'

export interface Endpoint {
  url: string
  accept: string
  /** Ids by the count rule: a create may take, and replace, a record's id. */
  countIds?: true
}

/** Pages walked at most when loading a whole collection for client-side paging. */
const MAX_PAGES = 100
const WALK_LIMIT = 500

const collator = new Intl.Collator(undefined, { sensitivity: 'accent' })

/** Ids are canonical non-negative decimal strings: shorter is smaller, then digit by digit. Exact beyond 2^53. */
export function compareIds (a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)
}

function nextLinkOf (body: unknown, headers: Headers): string | undefined {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const next = (body as { next?: unknown }).next
    if (typeof next === 'string' && next !== '') return next
  }
  return /<([^>]*)>\s*;\s*rel="?next"?/.exec(headers.get('link') ?? '')?.[1]
}

function recordsOf (items: unknown, spec: ResourceSpec): Rec[] {
  if (!Array.isArray(items)) return []
  const records: Rec[] = []
  for (const item of items) {
    const record = toRecord(item, spec)
    if (record !== undefined) records.push(record)
  }
  return records
}

/** Client mode: an API filter on one value (absent never matches, like the stores). */
function holds (value: Rec[string] | undefined, op: string, wanted: string): boolean {
  if (value === undefined) return false
  if (typeof value === 'boolean') return String(value) === wanted
  if (op === 'contains') return String(value).toLowerCase().includes(wanted.toLowerCase())
  const n = Number(wanted)
  if (typeof value === 'number' && Number.isFinite(n)) return op === 'gte' ? value >= n : op === 'lte' ? value <= n : op === 'gt' ? value > n : op === 'lt' ? value < n : op === 'ne' ? value !== n : value === n
  return op === 'eq' ? String(value) === wanted : true
}

/**
 * One collection as the view shows it, page by page, in either mode; the
 * mode is found from the service's first answer, so the page works before
 * and after the querying issue lands.
 */
export class Listing {
  mode: Mode | undefined
  private query: ListQuery = { q: '', limit: 20, filters: {}, page: 0 }
  private readonly all = new Map<string, Rec>()
  private loaded = false
  private pageIndex = 0
  /** Server mode: the URL each page walked so far came from, and the next page's. */
  private pageUrls: string[] = []
  private nextUrl: string | undefined
  private serverRows: Rec[] = []
  private total: number | undefined
  private seq = 0
  /**
   * Server mode: the page last asked for (its URL and index), answered or not.
   * A refresh asks for it again: while a new query's first page is on its
   * way, the page shown is the old query's, and reading that again would
   * overtake the new query's answer with the old one.
   */
  private wanted: { url: string, index: number } | undefined
  /** When the last list read was sent (performance.now()): a feed reset older than that needs no read. */
  lastReadAt: number | undefined

  constructor (private readonly api: Api, private readonly spec: ResourceSpec, private readonly endpoint: Endpoint) {}

  /** Shows the first page for a (new) query. */
  async setQuery (query: ListQuery): Promise<Outcome> {
    this.query = query
    this.pageIndex = this.mode === 'client' ? query.page : 0
    if (this.mode === 'client' && this.loaded) return { ok: true }
    if (this.mode === 'server' && query.cursor !== undefined) return await this.fetchServerPage(this.firstUrl(), query.page)
    return await this.fetchFirst()
  }

  /** The cursor and index of the page shown, for the URL (client mode: the index alone). */
  position (): { cursor?: string, page: number } {
    if (this.mode !== 'server') return { cursor: this.pageIndex > 0 ? String(this.pageIndex) : undefined, page: this.pageIndex }
    const url = this.pageUrls[this.pageIndex]
    const cursor = url === undefined ? undefined : new URL(url, location.href).searchParams.get('cursor') ?? undefined
    return { cursor: this.pageIndex > 0 ? cursor : undefined, page: this.pageIndex }
  }

  /** Client mode: the last page (server mode pages by cursor, and has no way to the end but walking). */
  async last (): Promise<Outcome> {
    if (this.mode === 'client') this.pageIndex = Math.max(0, Math.ceil(this.matching().length / this.query.limit) - 1)
    return { ok: true }
  }

  /**
   * The page numbers the pager offers: the page shown, how many pages the
   * count makes, and the pages one click away (client mode: every one;
   * server mode, which pages by cursor: those walked so far and the next).
   */
  pageNumbers (): { current: number, count?: number, reachable: number[] } {
    const { limit } = this.query
    if (this.mode === 'server') {
      const reachable = this.pageUrls.flatMap((url, index) => url === undefined ? [] : [index])
      if (this.nextUrl !== undefined && !reachable.includes(this.pageIndex + 1)) reachable.push(this.pageIndex + 1)
      const count = this.total === undefined ? undefined : Math.max(1, Math.ceil(this.total / limit))
      return { current: this.pageIndex, count, reachable }
    }
    const count = Math.max(1, Math.ceil(this.matching().length / limit))
    return { current: this.pageIndex, count, reachable: Array.from({ length: count }, (_, index) => index) }
  }

  /** Shows the page with this index, when it is one of pageNumbers().reachable. */
  async jump (index: number): Promise<Outcome> {
    if (this.mode !== 'server') {
      if (index >= 0 && index <= this.pageNumbers().reachable.length - 1) this.pageIndex = index
      return { ok: true }
    }
    if (index === this.pageIndex + 1) return await this.next()
    const url = this.pageUrls[index]
    return url === undefined ? { ok: true } : await this.fetchServerPage(url, index)
  }

  /** Fetches the current page again (after a change, or on request). */
  async refresh (): Promise<Outcome> {
    if (this.mode === 'client') return await this.fetchAll()
    if (this.mode === 'server') return await this.fetchServerPage(this.wanted?.url ?? this.firstUrl(), this.wanted?.index ?? 0)
    return await this.fetchFirst()
  }

  async next (): Promise<Outcome> {
    if (this.mode === 'server') {
      if (this.nextUrl === undefined) return { ok: true }
      return await this.fetchServerPage(this.nextUrl, this.pageIndex + 1)
    }
    if (this.page().hasNext) this.pageIndex++
    return { ok: true }
  }

  async previous (): Promise<Outcome> {
    if (this.pageIndex === 0) return { ok: true }
    if (this.mode === 'server') {
      const url = this.pageUrls[this.pageIndex - 1]
      return url === undefined ? await this.fetchServerPage(this.baseUrl(), 0) : await this.fetchServerPage(url, this.pageIndex - 1)
    }
    this.pageIndex--
    return { ok: true }
  }

  /**
   * Applies a change known to have happened (made here, or reported by the
   * change feed). Returns true when the current page must be fetched again
   * to be exact (server mode: the change may move records between pages).
   */
  apply (kind: 'created' | 'replaced' | 'deleted', id: string, record?: Rec): boolean {
    if (this.mode === 'client') {
      if (kind === 'deleted') this.all.delete(id)
      else if (record !== undefined) {
        const before = this.all.get(id)
        if (before !== undefined) keepReferenceLabels(before, record)
        this.all.set(id, record)
      }
      return false
    }
    const at = this.serverRows.findIndex((row) => row.id === id)
    if (at >= 0) {
      if (kind === 'deleted') {
        this.serverRows.splice(at, 1)
        if (this.total !== undefined) this.total--
      } else if (record !== undefined) {
        keepReferenceLabels(this.serverRows[at] as Rec, record)
        this.serverRows[at] = record
      }
    }
    return this.mode === 'server'
  }

  /** The record with this id, if the listing holds it. */
  find (id: string): Rec | undefined {
    return this.mode === 'client' ? this.all.get(id) : this.serverRows.find((row) => row.id === id)
  }

  page (): Page {
    if (this.mode === 'server') {
      const offset = this.pageIndex * this.query.limit
      return { rows: this.serverRows, offset, total: this.total, hasPrev: this.pageIndex > 0, hasNext: this.nextUrl !== undefined }
    }
    const matching = this.matching()
    const { limit } = this.query
    const lastPage = Math.max(0, Math.ceil(matching.length / limit) - 1)
    if (this.pageIndex > lastPage) this.pageIndex = lastPage
    const offset = this.pageIndex * limit
    return {
      rows: matching.slice(offset, offset + limit),
      offset,
      total: matching.length,
      hasPrev: this.pageIndex > 0,
      hasNext: offset + limit < matching.length
    }
  }

  /** Client mode: the querying issue's semantics, applied here (q: case-insensitive substring of any text field; ties by id). */
  private matching (): Rec[] {
    const q = this.query.q.trim().toLowerCase()
    const searchable = this.spec.fields.filter((f) => f.searchable).map((f) => f.key)
    let rows = [...this.all.values()]
    if (q !== '') rows = rows.filter((row) => searchable.some((key) => String(row[key] ?? '').toLowerCase().includes(q)))
    for (const [param, value] of Object.entries(this.query.filters)) {
      const [, key = '', op = 'eq'] = /^([^[]+)(?:\[(\w+)\])?$/.exec(param) ?? []
      rows = rows.filter((row) => holds(row[key], op, value))
    }
    const { sort } = this.query
    const kind = this.spec.fields.find((f) => f.key === sort?.field)?.kind
    const direction = sort?.desc === true ? -1 : 1
    rows.sort((a, b) => {
      if (sort === undefined || sort.field === 'id') return direction * compareIds(a.id, b.id)
      const x = a[sort.field]
      const y = b[sort.field]
      const order = kind === 'integer' ? Number(x) - Number(y) : collator.compare(String(x ?? ''), String(y ?? ''))
      return direction * order || compareIds(a.id, b.id)
    })
    return rows
  }

  /** The first page's URL for the query. */
  private baseUrl (): string {
    const { q, sort, limit, filters } = this.query
    let url = `${this.endpoint.url}?limit=${limit}&count=true`
    if (sort !== undefined) url += `&sort=${sort.desc ? '-' : ''}${sort.field}`
    if (q.trim() !== '') url += `&q=${encodeURIComponent(q.trim())}`
    for (const [param, value] of Object.entries(filters)) if (value !== '') url += `&${param}=${encodeURIComponent(value)}`
    if (this.spec.listParams !== undefined) url += `&${this.spec.listParams}`
    return url
  }

  /** The URL of the page the query names (its cursor, when it has one). */
  private firstUrl (): string {
    const { cursor } = this.query
    return cursor === undefined ? this.baseUrl() : `${this.baseUrl()}&cursor=${encodeURIComponent(cursor)}`
  }

  private async get (url: string): Promise<{ seq: number, result: Awaited<ReturnType<Api['request']>> }> {
    const seq = ++this.seq
    this.lastReadAt = performance.now()
    const result = await this.api.request('GET', url, { accept: this.endpoint.accept, exact: this.spec.exactIds })
    return { seq, result }
  }

  private async fetchFirst (): Promise<Outcome> {
    const url = this.firstUrl()
    this.wanted = { url, index: this.query.cursor === undefined ? 0 : this.query.page }
    const { seq, result } = await this.get(url)
    if (seq !== this.seq) return { ok: false, stale: true }
    if (!result.ok) return { ok: false, problem: result.problem ?? { status: result.status, errors: [] } }
    if (Array.isArray(result.body)) {
      this.mode = 'client'
      this.replaceAll(recordsOf(result.body, this.spec))
      return { ok: true }
    }
    if (result.headers.has('x-total-count')) {
      this.mode = 'server'
      this.takeServerPage(url, this.query.cursor === undefined ? 0 : this.query.page, result.body, result.headers)
      return { ok: true }
    }
    // Pages, but the query was not understood: walk them all once and work here.
    this.mode = 'client'
    return await this.fetchAll()
  }

  private async fetchServerPage (url: string, index: number): Promise<Outcome> {
    this.wanted = { url, index }
    const { seq, result } = await this.get(url)
    if (seq !== this.seq) return { ok: false, stale: true }
    if (!result.ok) return { ok: false, problem: result.problem ?? { status: result.status, errors: [] } }
    this.takeServerPage(url, index, result.body, result.headers)
    return { ok: true }
  }

  private takeServerPage (url: string, index: number, body: unknown, headers: Headers): void {
    this.pageIndex = index
    this.pageUrls = this.pageUrls.slice(0, index)
    // Opened at a later page (a link, a reload): the first page is the query without a cursor.
    if (index > 0 && this.pageUrls[0] === undefined) this.pageUrls[0] = this.baseUrl()
    this.pageUrls[index] = url
    this.serverRows = recordsOf((body as { items?: unknown } | undefined)?.items, this.spec)
    this.nextUrl = nextLinkOf(body, headers)
    const total = Number(headers.get('x-total-count'))
    this.total = Number.isSafeInteger(total) && total >= 0 ? total : undefined
  }

  private async fetchAll (): Promise<Outcome> {
    const records: Rec[] = []
    let url: string | undefined = `${this.endpoint.url}?limit=${WALK_LIMIT}${this.spec.listParams === undefined ? '' : `&${this.spec.listParams}`}`
    const seq = ++this.seq
    this.lastReadAt = performance.now()
    for (let pages = 0; url !== undefined && pages < MAX_PAGES; pages++) {
      const result = await this.api.request('GET', url, { accept: this.endpoint.accept, exact: this.spec.exactIds })
      if (seq !== this.seq) return { ok: false, stale: true }
      if (!result.ok) return { ok: false, problem: result.problem ?? { status: result.status, errors: [] } }
      if (Array.isArray(result.body)) {
        records.push(...recordsOf(result.body, this.spec))
        break
      }
      records.push(...recordsOf((result.body as { items?: unknown } | undefined)?.items, this.spec))
      url = nextLinkOf(result.body, result.headers)
    }
    this.replaceAll(records)
    return { ok: true }
  }

  private replaceAll (records: Rec[]): void {
    this.all.clear()
    for (const record of records) this.all.set(record.id, record)
    this.loaded = true
  }
}
