import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { userTableOf, type CollectionDeclaration, type Kind, type RecordStore, type StoredField, type StoredRecord } from '../../src/domain/index.js'
import { kindLabel, type StoreKind } from './harness.js'
import type { Stores } from '../helpers/built-ins.js'

/**
 * Any field name the declaration checker accepts works on every store
 * (issue 36, item 5): every SQL keyword of PostgreSQL and SQLite as a field
 * (a keyword with an underscore as the camelCase field whose column it is:
 * `currentDate` → `current_date`), the names PostgreSQL keeps for system
 * columns, names the stores' own SQL uses, a field beside the folded copy of
 * another (`s` and `sFolded`), and names PostgreSQL would cut at 63
 * characters. Records round-trip: create, get, list filtered and sorted by
 * each field, update, delete.
 */

/** `SELECT word FROM pg_get_keywords()` on PostgreSQL 15 (the -pg test checks the server's list is covered). */
export const POSTGRES_KEYWORDS = `abort absolute access action add admin after aggregate all also alter always analyse analyze and any array as
asc asensitive assertion assignment asymmetric at atomic attach attribute authorization backward before begin
between bigint binary bit boolean both breadth by cache call called cascade cascaded case cast catalog chain
char character characteristics check checkpoint class close cluster coalesce collate collation column columns
comment comments commit committed compression concurrently configuration conflict connection constraint
constraints content continue conversion copy cost create cross csv cube current current_catalog current_date
current_role current_schema current_time current_timestamp current_user cursor cycle data database day
deallocate dec decimal declare default defaults deferrable deferred definer delete delimiter delimiters
depends depth desc detach dictionary disable discard distinct do document domain double drop each else enable
encoding encrypted end enum escape event except exclude excluding exclusive execute exists explain expression
extension external extract false family fetch filter finalize first float following for force foreign forward
freeze from full function functions generated global grant granted greatest group grouping groups handler
having header hold hour identity if ilike immediate immutable implicit import in include including increment
index indexes inherit inherits initially inline inner inout input insensitive insert instead int integer
intersect interval into invoker is isnull isolation join key label language large last lateral leading
leakproof least left level like limit listen load local localtime localtimestamp location lock locked logged
mapping match matched materialized maxvalue merge method minute minvalue mode month move name names national
natural nchar new next nfc nfd nfkc nfkd no none normalize normalized not nothing notify notnull nowait null
nullif nulls numeric object of off offset oids old on only operator option options or order ordinality others
out outer over overlaps overlay overriding owned owner parallel parameter parser partial partition passing
password placing plans policy position preceding precision prepare prepared preserve primary prior privileges
procedural procedure procedures program publication quote range read real reassign recheck recursive ref
references referencing refresh reindex relative release rename repeatable replace replica reset restart
restrict return returning returns revoke right role rollback rollup routine routines row rows rule savepoint
schema schemas scroll search second security select sequence sequences serializable server session
session_user set setof sets share show similar simple skip smallint snapshot some sql stable standalone start
statement statistics stdin stdout storage stored strict strip subscription substring support symmetric sysid
system table tables tablesample tablespace temp template temporary text then ties time timestamp to trailing
transaction transform treat trigger trim true truncate trusted type types uescape unbounded uncommitted
unencrypted union unique unknown unlisten unlogged until update user using vacuum valid validate validator
value values varchar variadic varying verbose version view views volatile when where whitespace window with
within without work wrapper write xml xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces
xmlparse xmlpi xmlroot xmlserialize xmltable year yes zone`.split(/\s+/)

/** SQLite's 147 keywords (https://sqlite.org/lang_keywords.html). */
export const SQLITE_KEYWORDS = `abort action add after all alter always analyze and as asc attach autoincrement before begin between by
cascade case cast check collate column commit conflict constraint create cross current current_date current_time
current_timestamp database default deferrable deferred delete desc detach distinct do drop each else end escape
except exclude exclusive exists explain fail filter first following for foreign from full generated glob group
groups having if ignore immediate in index indexed initially inner insert instead intersect into is isnull join
key last left like limit match materialized natural no not nothing notnull null nulls of offset on or order
others outer over partition plan pragma preceding primary query raise range recursive references regexp reindex
release rename replace restrict returning right rollback row rows savepoint select set table temp temporary then
ties to transaction trigger unbounded union unique update using vacuum values view virtual when where window
with without`.split(/\s+/)

/** Names the stores' own SQL or the databases use beside the declared columns. */
const INTERNAL = ['ctid', 'xmin', 'xmax', 'cmin', 'cmax', 'tableoid', 'oid', 'rowid', 'oRowid', 'inserted', 'replaced', 'ord', 'n', 'record', 'service', 'kind']
/** A field and the folded copy of another, both orders; names PostgreSQL cuts at 63 characters. */
const COLLIDING = ['s', 'sFolded', 'titleFolded', 'title', `a${'B'.repeat(40)}`, `a${'B'.repeat(40)}Folded`, `a${'b'.repeat(62)}`, `a${'b'.repeat(56)}Folded`]

/** A keyword as a field: `current_date` → `currentDate` (whose column is `current_date`). */
function fieldOf (keyword: string): string {
  return keyword.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
}

export const FIELD_NAMES = [...new Set([...POSTGRES_KEYWORDS, ...SQLITE_KEYWORDS].map(fieldOf)), ...INTERNAL, ...COLLIDING]

const TYPES: Kind[] = ['string', 'integer', 'boolean', 'number', 'string']
/** 30 fields a collection: PostgreSQL's generated functions take at most 100 arguments. */
const PER_COLLECTION = 30

export function keywordDeclarations (): CollectionDeclaration[] {
  const declarations: CollectionDeclaration[] = []
  for (let i = 0; i < FIELD_NAMES.length; i += PER_COLLECTION) {
    const name = `kw${declarations.length}`
    const fields: Record<string, StoredField> = {}
    for (const [j, field] of FIELD_NAMES.slice(i, i + PER_COLLECTION).entries()) fields[field] = { type: TYPES[j % TYPES.length] as Kind, required: true }
    declarations.push({ name, table: userTableOf(name), fields, ids: i % 2 === 0 ? 'sequence' : 'uuid', firstId: 1, putCreates: false, keptOnUpdate: [] })
  }
  return declarations
}

function valueOf (type: Kind, field: string, n: number): string | number | boolean {
  switch (type) {
    case 'string': return `${field} ${n} Ä`
    case 'integer': return n * 7
    case 'number': return n + 0.5
    case 'boolean': return n % 2 === 0
    default: throw new Error(`no value for a ${type} field`)
  }
}

async function * batches (records: StoredRecord[]): AsyncIterable<StoredRecord[]> {
  yield records
}

function recordOf (declaration: CollectionDeclaration, n: number): Record<string, string | number | boolean> {
  return Object.fromEntries(Object.entries(declaration.fields).map(([field, f]) => [field, valueOf(f.type, field, n)]))
}

export function keywordFieldsSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) {
    describe.skipIf(kind.skip !== undefined)(`${kindLabel(kind)} store: SQL keywords and internal names as fields${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
      const declarations = keywordDeclarations()
      let stores: Stores
      beforeAll(async () => {
        await kind.setup()
        stores = await kind.fresh({ collections: declarations })
      }, 120_000)
      afterAll(async () => {
        await stores?.close()
        await kind.teardown()
      })

      it(`declares ${FIELD_NAMES.length} such fields`, () => {
        for (const word of [...POSTGRES_KEYWORDS, ...SQLITE_KEYWORDS]) expect(FIELD_NAMES).toContain(fieldOf(word))
        expect(declarations.flatMap((d) => Object.keys(d.fields))).toEqual(FIELD_NAMES)
      })

      it('round-trips records: create, get, filter and sort by each field, search, update, delete', async () => {
        for (const declaration of declarations) {
          const store = stores.collections.get(declaration.name) as RecordStore
          const first = await store.create(recordOf(declaration, 1))
          const second = await store.create(recordOf(declaration, 2))
          expect(first.outcome).toBe('created')
          expect(first.record).toEqual({ id: first.record.id, ...recordOf(declaration, 1) })
          expect(await store.get(second.record.id)).toEqual({ id: second.record.id, ...recordOf(declaration, 2) })
          for (const [field, f] of Object.entries(declaration.fields)) {
            const matching = await store.query({ where: [{ field, op: 'eq', value: valueOf(f.type, field, 2) }], sort: [] })
            expect(matching.map((r) => r.id), `${declaration.name}.${field} = …`).toEqual([second.record.id])
            const sorted = await store.query({ where: [], sort: [{ field, descending: true }] })
            if (f.type !== 'boolean') expect(sorted.map((r) => r.id), `sorted by ${field}`).toEqual([second.record.id, first.record.id])
            if (f.type === 'string') {
              expect(await store.count({ where: [{ field, op: 'contains', value: `${field.toUpperCase()} 1 ä` }] }), `${field} contains`).toBe(1)
            }
          }
          expect(await store.count({ where: [], search: ' 2 ä' })).toBe(1)
          const replaced = await store.put(first.record.id, recordOf(declaration, 3))
          expect(replaced).toEqual({ outcome: 'replaced', record: { id: first.record.id, ...recordOf(declaration, 3) } })
          expect(await store.get(first.record.id)).toEqual({ id: first.record.id, ...recordOf(declaration, 3) })
          expect(await store.delete(first.record.id)).toEqual({ outcome: 'deleted' })
          expect(await store.get(first.record.id)).toBeUndefined()
          expect(await store.count({ where: [] })).toBe(1)
          const importedId = declaration.ids === 'uuid' ? '00000000-0000-4000-8000-000000000001' : 100
          expect(await store.importAll(batches([{ id: importedId, ...recordOf(declaration, 4) }]))).toBe(1)
          expect(await store.get(importedId)).toEqual({ id: importedId, ...recordOf(declaration, 4) })
          expect(await store.delete(importedId)).toEqual({ outcome: 'deleted' })
        }
      }, 120_000)

      it.skipIf(!kind.durable)('keeps them across a reopen', async () => {
        const again = await kind.reopen({ collections: declarations })
        try {
          for (const declaration of declarations) {
            expect(await (again?.collections.get(declaration.name) as RecordStore).count({ where: [] })).toBe(1)
          }
        } finally {
          await again?.close()
        }
      }, 120_000)
    })
  }
}
