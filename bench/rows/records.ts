/**
 * The rows of the verbs and relations: a bulk create against one-record
 * POSTs, aggregates against the same SQL run by hand, a `filter=` expression
 * against bracket parameters, a page with `expand` against the plain page
 * (REST and GraphQL), and PATCH against POST. Every server is rqs serving
 * declared collections (lib/declared.ts), seeded before it listens.
 */
import Database from 'better-sqlite3'
import pg from 'pg'
import { compare, httpContender, type AnswerCheck, type Contender } from '../lib/compare.js'
import { BOOK_INPUT, declaredSpec, LIBRARY, librarySetup, storeOf, type StoreKind } from '../lib/declared.js'
import { loopContender } from '../lib/loops.js'
import type { LoadRequest } from '../lib/load.js'
import { noDatabase, statusIs, type RowContext, type RowModule, type RowSpec } from '../lib/row.js'

/** The rows that read the library (with the store's suffix: expand-pg). */
const LIBRARY_ROWS = ['filter-expr', 'expand', 'graphql-expand', 'patch']
const STORE_NAMES: Record<StoreKind, string> = { memory: 'memory', sqlite: 'SQLite', postgres: 'PostgreSQL' }
const json = { 'content-type': 'application/json' }

/**
 * Books without references: what a bulk create writes. `shelf` has every
 * field indexed (nothing declared); `lean-shelf` declares its indexes as a
 * bulk loader would (the year alone), so the title's index, a B-tree on
 * distinct texts that each batch dirties throughout, is not written.
 */
const SHELF_SCHEMA = { type: 'object', properties: { title: { type: 'string', maxLength: 200 }, year: { type: 'integer' }, price: { type: 'number' } }, required: ['title', 'year'] }
const LEAN_INDEXES = [['year']]
const SHELF = {
  shelf: { schema: SHELF_SCHEMA },
  'lean-shelf': { schema: SHELF_SCHEMA, indexes: LEAN_INDEXES }
}
const shelfBook = (i: number): { title: string, year: number, price: number } => ({ title: `Book ${i}`, year: 1900 + (i % 120), price: (i % 50) + 0.5 })

/** Readings of 100 sensors: what the aggregates group. */
const READINGS = {
  readings: { schema: { type: 'object', properties: { sensor: { type: 'integer' }, value: { type: 'number' } }, required: ['sensor', 'value'] } }
}
const SENSORS = 100
const AGGREGATE_PATH = '/readings/aggregate?groupBy=sensor&count=true&sum=value&avg=value'
/** What rqs runs for AGGREGATE_PATH, written by hand (it computes the average as sum ÷ count of values). */
const AGGREGATE_SQL = 'SELECT sensor, count(*) AS n, sum(value) AS s, avg(value) AS a FROM rqs_col_readings GROUP BY sensor ORDER BY sensor'

const groupsAre = (n: number): AnswerCheck => (s, body) =>
  s === 200 && (JSON.parse(body) as { groups?: unknown[] }).groups?.length === n ? undefined : `not ${n} groups`
const itemsAre = (n: number | 'some'): AnswerCheck => (s, body) => {
  if (s !== 200) return `status ${s}`
  const items = (JSON.parse(body) as { items?: unknown[] }).items
  return items !== undefined && (n === 'some' ? items.length > 0 : items.length === n) ? undefined : `not ${n} items`
}
const expanded = (members: string[]): AnswerCheck => (s, body) => {
  const problem = itemsAre(50)(s, body, new Headers())
  if (problem !== undefined) return problem
  const first = (JSON.parse(body) as { items: Array<{ expand?: Record<string, unknown> }> }).items[0]
  return members.every((m) => first?.expand?.[m] !== undefined) ? undefined : `not expanded: ${members.join(', ')}`
}

export function recordRows (ctx: RowContext): RowModule {
  const { settings, quick } = ctx
  const sizes = quick
    ? { bulk: 200, readings: 2_000, books: 1_000 }
    : { bulk: 10_000, readings: 1_000_000, books: 10_000 }
  const bulkClients = 8
  const stores: StoreKind[] = ['memory', 'sqlite', 'postgres']
  const onStore = (store: StoreKind): Pick<RowSpec, 'skip'> => store === 'postgres' ? { skip: noDatabase } : {}
  const suffix = (store: StoreKind): string => store === 'memory' ? '' : store === 'sqlite' ? '-sqlite' : '-pg'

  // One server per store holds every collection these rows use (fewer processes to start, each seeded once);
  // the features-off rows show what other collections cost a request (nothing measurable).
  const recipes: RowModule['recipes'] = {}
  /** The store's location (a fresh database, a temp file), for the by-hand baselines. */
  const locations = new Map<StoreKind, string>()
  for (const store of stores) {
    recipes[`records-${store}`] = async () => {
      const spec = await declaredSpec(ctx.declared, {
        label: `rqs-records-${store}`,
        declaration: { collections: { ...SHELF, ...READINGS, ...LIBRARY.collections } },
        store,
        // Seeded with what the run's rows on this store read (a million readings take minutes to write).
        setup: [
          ...(LIBRARY_ROWS.some((id) => ctx.willRun(`${id}${suffix(store)}`)) ? librarySetup(sizes.books) : []),
          ...(ctx.willRun(`aggregates${suffix(store)}`) ? [{ seed: { collection: 'readings', count: sizes.readings, record: { sensor: { cycle: SENSORS }, value: { cycle: 1000, step: 0.25 } } } }] : [])
        ]
      })
      locations.set(store, storeOf(spec))
      return spec
    }
  }

  const bulkRow = (store: StoreKind): RowSpec => {
    const key = `records-${store}`
    const title = `bulk create of ${sizes.bulk.toLocaleString('en')}, ${STORE_NAMES[store]}, indexes declared: year only`
    const single = `rqs, one-record POSTs (${bulkClients} connections)`
    return {
      id: `bulk-create${suffix(store)}`,
      group: 'bulk-create',
      title,
      servers: [key],
      ...onStore(store),
      run: async (s) => {
        const server = s[key]!
        // Serialised once: the runner's work is not what the row measures.
        const batch = JSON.stringify(Array.from({ length: sizes.bulk }, (_, i) => shelfBook(i)))
        const bulkInto = (collection: string, label: string, role: Contender['role']): Contender =>
          fewerInQuickMode(loopContender(label, role, async () => {
            const res = await fetch(`${server.origin}/${collection}`, { method: 'POST', headers: json, body: batch })
            await res.arrayBuffer()
            if (res.status !== 201) throw new Error(`bulk create into ${collection}: status ${res.status}`)
            return sizes.bulk
          }, { concurrency: 1, cpuOf: { pid: server.pid } }))
        const r = await compare({ id: `bulk-create${suffix(store)}`, title, goal: { against: single, min: 10, text: '≥ 10× one-record POSTs (records)' } }, [
          bulkInto('lean-shelf', `rqs, POST of ${sizes.bulk.toLocaleString('en')} records (indexes: year)`, 'target'),
          // The generator, as every POST row: a client in this process would be the limit, not the server.
          httpContender(single, 'baseline', server, { method: 'POST', path: '/lean-shelf', body: JSON.stringify(shelfBook(0)), headers: json }, bulkClients, statusIs(201)),
          // For comparison, not judged: the same arrays into the collection with every field indexed.
          bulkInto('shelf', `rqs, POST of ${sizes.bulk.toLocaleString('en')} records, every field indexed`, 'baseline')
        ], settings)
        // The rates here are records a second, and CPU µs a record.
        return { ...r, note: 'req/s = records/s; CPU µs/req = CPU µs a record; the every-field-indexed line is for comparison (not judged)' }
      }
    }
  }

  const aggregateRow = (store: 'sqlite' | 'postgres'): RowSpec => {
    const key = `records-${store}`
    const title = `aggregate into ${SENSORS} groups, ${sizes.readings.toLocaleString('en')} records, ${STORE_NAMES[store]}`
    const byHand = store === 'postgres' ? 'the same SQL by hand (pg, prepared)' : 'the same SQL by hand (better-sqlite3)'
    return {
      id: `aggregates${suffix(store)}`,
      group: 'aggregates',
      title,
      servers: [key],
      ...onStore(store),
      run: async (s) => {
        const location = locations.get(store)!
        const baseline = store === 'postgres' ? await pgByHand(location, byHand) : sqliteByHand(location.slice('sqlite:'.length), byHand)
        try {
          const min = store === 'postgres' ? 1 / 1.2 : 1 / 1.5
          return await compare({ id: `aggregates${suffix(store)}`, title, goal: { against: byHand, min, text: `within ${store === 'postgres' ? '1.2' : '1.5'}× of its SQL by hand (≥ ${min.toFixed(2)}×)` } }, [
            // A loop like the baseline's, not the generator: an aggregate over a million records can outlast a short
            // run, and the generator counts no answer that is still coming when its time is up.
            loopContender('rqs GET /readings/aggregate', 'target', async () => {
              const res = await fetch(`${s[key]!.origin}${AGGREGATE_PATH}`)
              const problem = groupsAre(SENSORS)(res.status, await res.text(), res.headers)
              if (problem !== undefined) throw new Error(problem)
              return 1
            }, { concurrency: 1, cpuOf: { pid: s[key]!.pid } }),
            baseline.contender
          ], { ...settings, connections: 1 })
        } finally {
          await baseline.close()
        }
      }
    }
  }

  /** One row of two GETs on the library (books with authors and tags): `target` against `baseline`. */
  const libraryRow = (id: string, group: string, store: StoreKind, title: string, target: [string, LoadRequest, AnswerCheck], baseline: [string, LoadRequest, AnswerCheck], goal?: { min: number, text: string }): RowSpec => {
    const key = `records-${store}`
    return {
      id,
      group,
      title,
      servers: [key],
      ...onStore(store),
      run: async (s) => await compare({ id, title, goal: goal === undefined ? undefined : { against: baseline[0], ...goal } }, [
        httpContender(target[0], 'target', s[key]!, target[1], settings.connections, target[2]),
        httpContender(baseline[0], 'baseline', s[key]!, baseline[1], settings.connections, baseline[2])
      ], settings)
    }
  }
  const books = sizes.books.toLocaleString('en')
  const page: [string, LoadRequest, AnswerCheck] = ['rqs GET /books?limit=50', { method: 'GET', path: '/books?limit=50' }, itemsAre(50)]
  const expandRow = (store: 'memory' | 'postgres'): RowSpec => libraryRow(`expand${suffix(store)}`, 'expand', store,
    `expand=author,tags, ${books} books, ${STORE_NAMES[store]}`,
    ['rqs GET /books?limit=50&expand=author,tags', { method: 'GET', path: '/books?limit=50&expand=author,tags' }, expanded(['author', 'tags'])],
    page, { min: 0.5, text: '≥ 0.5× the page without expand' })

  const rows: RowSpec[] = [
    ...stores.map(bulkRow),
    aggregateRow('sqlite'),
    aggregateRow('postgres'),
    libraryRow('filter-expr', 'filter-expr', 'memory', `filter= vs brackets, ${books} books`,
      ['rqs filter=year = 1965 || year = 1984 || year = 2001', { method: 'GET', path: `/books?limit=50&filter=${encodeURIComponent('year = 1965 || year = 1984 || year = 2001')}` }, itemsAre('some')],
      ['rqs year[in]=1965,1984,2001', { method: 'GET', path: '/books?limit=50&year[in]=1965,1984,2001' }, itemsAre('some')],
      { min: 0.9, text: 'within 10 % of brackets (≥ 0.9×)' }),
    expandRow('memory'),
    expandRow('postgres'),
    libraryRow('graphql-expand', 'expand', 'memory', `GraphQL books { author } vs REST expand`,
      ['rqs GraphQL books(first: 50) { nodes { title author { name } } }', { method: 'POST', path: '/graphql', body: JSON.stringify({ query: '{ books(first: 50) { nodes { title author { name } } } }' }), headers: json },
        (st, body) => st === 200 && (JSON.parse(body) as { data?: { books?: { nodes?: Array<{ author?: { name?: string } }> } } }).data?.books?.nodes?.filter((n) => n.author?.name !== undefined).length === 50 ? undefined : 'not 50 books with their authors'],
      ['rqs GET /books?limit=50&expand=author', { method: 'GET', path: '/books?limit=50&expand=author' }, expanded(['author'])],
      { min: 0.8, text: '≥ 0.8× REST with expand=author' }),
    libraryRow('patch', 'patch', 'memory', 'PATCH /books/1 vs POST /books',
      ['rqs PATCH /books/1', { method: 'PATCH', path: '/books/1', body: JSON.stringify({ price: 3.5 }), headers: { 'content-type': 'application/merge-patch+json' } }, statusIs(200)],
      // No target: how a PATCH compares with a create, for reading.
      ['rqs POST /books', { method: 'POST', path: '/books', body: JSON.stringify(BOOK_INPUT), headers: json }, statusIs(201)])
  ]
  return { recipes, rows }
}

/** In quick mode two bulk creates prove the row works (a hundred, as the other contenders send, would only take time). */
function fewerInQuickMode (c: Contender): Contender {
  return { ...c, measure: async (o) => await c.measure({ ...o, maxRequests: o.maxRequests === undefined ? undefined : 2 }) }
}

/** The aggregate's SQL through pg on its own connection, prepared once, one query at a time (PostgreSQL's CPU is in its backend: judged by rate). */
async function pgByHand (url: string, label: string): Promise<{ contender: Contender, close: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const query = { name: 'bench-aggregate', text: AGGREGATE_SQL }
  return {
    contender: loopContender(label, 'baseline', async () => { await client.query(query); return 1 }, {
      concurrency: 1,
      cpuOf: undefined,
      check: async () => { const { rowCount } = await client.query(query); if (rowCount !== SENSORS) throw new Error(`${label}: ${rowCount ?? 0} groups, expected ${SENSORS}`) }
    }),
    close: async () => { await client.end() }
  }
}

/** The aggregate's SQL through better-sqlite3 in this process, on the server's file (WAL: readers beside its writer), its CPU this process's. */
function sqliteByHand (file: string, label: string): { contender: Contender, close: () => Promise<void> } {
  const db = new Database(file, { readonly: true })
  const statement = db.prepare(AGGREGATE_SQL)
  return {
    contender: loopContender(label, 'baseline', async () => { statement.all(); return 1 }, {
      concurrency: 1,
      cpuOf: { self: true },
      check: async () => { const n = statement.all().length; if (n !== SENSORS) throw new Error(`${label}: ${n} groups, expected ${SENSORS}`) }
    }),
    close: async () => { db.close() }
  }
}
