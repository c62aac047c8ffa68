import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { Condition, Operator, RecordQuery, SortKey } from '../../src/domain/index.js'
import { kindLabel, type StoreKind } from './harness.js'
import type { Address, Stores, Student } from '../helpers/built-ins.js'

/**
 * The query contract (src/stores/query.ts) on memory, SQLite and PostgreSQL:
 * random records and random queries — conditions, search, sort, pages walked
 * to the end by keyset position — must give exactly what the plain reference
 * implementation at the end of this file gives.
 */

// U+E000 and an emoji catch UTF-16 versus code point ordering; the rest are letters whose
// case folding is easy to get wrong (issue 19): final sigma, dotted and dotless i, ß and ẞ,
// the ﬁ ligature, the Kelvin sign, Greek with tonos precomposed and as a combining accent.
const ALPHABET = ['a', 'b', 'B', 'z', 'Z', 'ä', 'Ä', ' ', '%', '_', '1', '\uE000', '😀',
  'Σ', 'σ', 'ς', 'I', 'i', 'İ', 'ı', 'ß', 'ẞ', 's', 'S', 'ﬁ', 'f', 'F', '\u212A', 'k', 'Ά', 'ά', 'α', 'Α', '\u0301', '\u0307']
const text = (max: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: max })
const TEXT_OPS: Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains']
const INTEGER_OPS: Operator[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte']

interface Model<R, F extends string> {
  texts: readonly F[]
  integers: readonly F[]
  records: fc.Arbitrary<R[]>
  /** A value to compare field `f` with. */
  value: (f: F) => fc.Arbitrary<string | number | bigint>
  load: (stores: Stores, records: R[]) => Promise<void>
  store: (stores: Stores) => { query: (q: RecordQuery<F>) => Promise<R[]>, count: (q: RecordQuery<F>) => Promise<number>, batches: (q: RecordQuery<F>) => AsyncIterable<readonly R[]> }
}

const students: Model<Student, 'id' | 'firstName' | 'lastName' | 'age'> = {
  texts: ['firstName', 'lastName'],
  integers: ['id', 'age'],
  records: fc.uniqueArray(fc.record({ id: fc.nat(60), firstName: text(3), lastName: text(2), age: fc.nat(4) }), { selector: (s) => s.id, maxLength: 30 }),
  value: (f) => f === 'id' ? fc.nat(62) : f === 'age' ? fc.nat(5) : text(2),
  load: async (stores, records) => { await stores.students.importAll(once(records)) },
  store: (stores) => ({ query: async (q) => await stores.students.query(q), count: async (q) => await stores.students.count(q), batches: (q) => stores.students.batches(q) })
}

const BIG = 9223372036854775807n
const addressId = fc.oneof(fc.bigInt({ min: 1n, max: 40n }), fc.bigInt({ min: BIG - 5n, max: BIG }), fc.bigInt({ min: 1n, max: BIG }))
const addresses: Model<Address, 'id' | 'name' | 'city' | 'postalCode'> = {
  texts: ['name', 'city', 'postalCode'],
  integers: ['id'],
  records: fc.uniqueArray(fc.record({ id: addressId, name: text(3), city: text(2), postalCode: text(2) }), { selector: (a) => a.id, maxLength: 30 }),
  value: (f) => f === 'id' ? addressId : text(2),
  load: async (stores, records) => { await stores.addresses.importAll(once(records)) },
  store: (stores) => ({ query: async (q) => await stores.addresses.query(q), count: async (q) => await stores.addresses.count(q), batches: (q) => stores.addresses.batches(q) })
}

function queries<R, F extends string> (model: Model<R, F>): fc.Arbitrary<{ query: RecordQuery<F>, pageSize: number }> {
  const fields = [...model.texts, ...model.integers]
  const condition: fc.Arbitrary<Condition<F>> = fc.constantFrom(...fields).chain((field) =>
    fc.record({
      field: fc.constant(field),
      op: fc.constantFrom(...(model.texts.includes(field) ? TEXT_OPS : INTEGER_OPS)),
      value: model.value(field)
    }))
  const sort: fc.Arbitrary<Array<SortKey<F>>> = fc.uniqueArray(fc.record({ field: fc.constantFrom(...fields), descending: fc.boolean() }), { selector: (k) => k.field, maxLength: 3 })
  return fc.record({
    query: fc.record({ where: fc.array(condition, { maxLength: 3 }), search: fc.option(text(2), { nil: undefined }), sort }),
    pageSize: fc.integer({ min: 1, max: 7 })
  })
}

async function * once<R> (records: R[]): AsyncGenerator<R[]> {
  yield records
}

/** Registers the suite for each kind: query-conformance.slow.test.ts (memory, SQLite) and query-conformance-pg.test.ts (PostgreSQL) call it. */
export function queryConformanceSuite (kinds: StoreKind[]): void {
  for (const kind of kinds) suiteOn(kind)
}

function suiteOn (kind: StoreKind): void {
  describe.skipIf(kind.skip !== undefined)(`${kindLabel(kind)} store queries${kind.skip === undefined ? '' : ` (${kind.skip})`}`, () => {
    let stores: Stores
    beforeAll(kind.setup)
    afterAll(kind.teardown)
    beforeEach(async () => { stores = await kind.fresh() })
    afterEach(async () => { await stores.close() })
    const numRuns = kind.name === 'memory' ? 150 : 40

    for (const [name, model] of [['students', students], ['addresses', addresses]] as const) {
      it(`${name}: filters, search, sort and keyset pages walked to the end agree with the reference (property)`, async () => {
        const m = model as unknown as Model<Record<string, unknown> & { id: number | bigint }, string>
        await fc.assert(fc.asyncProperty(m.records, queries(m), async (records, { query, pageSize }) => {
          const run = await kind.fresh()
          try {
            await m.load(run, records)
            const store = m.store(run)
            const expected = reference(records, query)
            // Page by page, each page after the last record of the one before.
            const walked: unknown[] = []
            let after: RecordQuery['after']
            for (let pages = 0; pages <= records.length + 1; pages++) {
              const page = await store.query({ ...query, after, limit: pageSize })
              expect(page).toEqual(expected.slice(walked.length, walked.length + pageSize))
              walked.push(...page)
              if (page.length < pageSize) break
              const last = page[page.length - 1] as Record<string, unknown> & { id: number | bigint }
              after = { keys: query.sort.map((k) => last[k.field] as string), id: last.id }
            }
            expect(walked).toEqual(expected)
            expect(await store.count(query)).toBe(expected.length)
            const streamed: unknown[] = []
            for await (const batch of store.batches(query)) streamed.push(...batch)
            expect(streamed).toEqual(expected)
            expect(await store.query({ ...query })).toEqual(expected)
          } finally {
            await run.close()
          }
        }), { numRuns })
      })
    }

    it('answers alike when an equality selects more records than a store collects before sorting', async () => {
      // age = 1 holds 3000 records: the memory and SQLite stores then walk the sort's index instead.
      const records = Array.from({ length: 6000 }, (_, i) => ({ id: i, firstName: `F${(i * 7) % 13}`, lastName: `L${(i * 7919) % 6000}`, age: i % 2 }))
      await stores.students.importAll(once(records))
      for (const query of [
        { where: [{ field: 'age', op: 'eq', value: 1 }], sort: [{ field: 'lastName', descending: false }] },
        { where: [{ field: 'age', op: 'eq', value: 0 }, { field: 'firstName', op: 'eq', value: 'F3' }], sort: [{ field: 'lastName', descending: true }] },
        { where: [{ field: 'age', op: 'eq', value: 1 }, { field: 'lastName', op: 'gte', value: 'L5' }], sort: [{ field: 'firstName', descending: true }, { field: 'id', descending: false }] }
      ] as Array<RecordQuery<'id' | 'firstName' | 'lastName' | 'age'>>) {
        const expected = reference(records, query)
        const walked: Student[] = []
        let after: RecordQuery['after']
        for (;;) {
          const page = await stores.students.query({ ...query, after, limit: 700 })
          walked.push(...page)
          if (page.length < 700) break
          const last = page[page.length - 1] as Student
          after = { keys: query.sort.map((k) => last[k.field as keyof Student]), id: last.id }
        }
        expect(walked).toEqual(expected)
      }
    })

    it('streams many records in batches, in order, and stops early when the consumer does', async () => {
      const records = Array.from({ length: 2500 }, (_, i) => ({ id: i, firstName: `f${i % 7}`, lastName: `l${i % 11}`, age: i % 90 }))
      await stores.students.importAll(once(records))
      let seen = 0
      let batches = 0
      for await (const batch of stores.students.batches({ where: [{ field: 'age', op: 'gte', value: 10 }], sort: [{ field: 'lastName', descending: true }] })) {
        batches++
        seen += batch.length
      }
      expect(seen).toBe(records.filter((r) => r.age >= 10).length)
      expect(batches).toBeGreaterThan(1)
      for await (const batch of stores.students.batches({ where: [], sort: [] })) {
        expect(batch[0]).toEqual(records[0])
        break
      }
      // The store is usable afterwards: nothing was left open or locked.
      expect((await stores.students.create({ firstName: 'A', lastName: 'B', age: 1 })).id).toBe(2500)
      expect(await stores.students.count({ where: [] })).toBe(2501)
    })

    it('imports students all or nothing, keeps their ids, and the id rule counts them', async () => {
      await stores.students.create({ firstName: 'Old', lastName: 'One', age: 1 })
      async function * failing (): AsyncGenerator<Student[]> {
        yield [{ id: 5, firstName: 'A', lastName: 'B', age: 2 }]
        throw new Error('line 2: bad')
      }
      await expect(stores.students.importAll(failing())).rejects.toThrow('line 2: bad')
      expect(await stores.students.list()).toEqual([{ id: 0, firstName: 'Old', lastName: 'One', age: 1 }])
      const imported = [{ id: 7, firstName: 'C', lastName: 'D', age: 3 }, { id: 0, firstName: 'New', lastName: 'Zero', age: 4 }, { id: 3, firstName: 'E', lastName: 'F', age: 5 }]
      expect(await stores.students.importAll(once(imported))).toBe(3)
      expect(await stores.students.list()).toEqual([imported[1], imported[2], imported[0]])
      // Three records held: the next create gets id 3 and, by the spec's rule, replaces the record there.
      expect((await stores.students.create({ firstName: 'G', lastName: 'H', age: 6 })).id).toBe(3)
      expect((await stores.students.create({ firstName: 'I', lastName: 'J', age: 7 })).id).toBe(3)
      expect(await stores.students.count({ where: [] })).toBe(3)
    })

    it('imports addresses with their ids; generated ids then skip every imported one', async () => {
      const imported = Array.from({ length: 300 }, (_, i) => ({ id: BigInt(i + 1), name: `n${i}`, city: 'Kiel', postalCode: '24103' }))
      imported.push({ id: BIG, name: 'far', city: 'Bonn', postalCode: '53111' })
      expect(await stores.addresses.importAll(once(imported))).toBe(301)
      expect((await stores.addresses.create({ name: 'x', city: 'y', postalCode: 'z' })).id).toBe(301n)
      expect(await stores.addresses.get(BIG)).toEqual(imported[300])
      expect(await stores.addresses.count({ where: [{ field: 'city', op: 'eq', value: 'Kiel' }] })).toBe(300)
    })

    it('search and contains fold case by one rule, whatever wrote the record (issue 19)', async () => {
      // Written through every write path: create, replace, import; addresses by create and PUT.
      await stores.students.create({ firstName: 'Σίσυφος', lastName: 'Straße', age: 1 })
      await stores.students.create({ firstName: 'x', lastName: 'y', age: 2 })
      await stores.students.replace({ id: 1, firstName: 'Istanbul', lastName: 'ﬁsh', age: 2 })
      await stores.students.importAll(once([{ id: 2, firstName: 'İzmir', lastName: 'Cafe\u0301', age: 3 }]))
      await stores.addresses.create({ name: 'ΆΡΗΣ', city: 'KØBENHAVN', postalCode: 'ẞ1' })
      await stores.addresses.put(7n, { name: 'n', city: 'ﬂensburg', postalCode: 'k' })
      const search = async (q: string): Promise<number[]> => (await stores.students.query({ where: [], search: q, sort: [] })).map((s) => s.id)
      const count = async (q: string): Promise<number> => await stores.students.count({ where: [], search: q })
      expect(await search('ΣΊΣΥΦΟΣ')).toEqual([0])
      expect(await count('ΣΊΣΥΦΟΣ')).toBe(1)
      expect(await search('STRASSE')).toEqual([0])
      expect(await search('FISH')).toEqual([1])
      expect(await search('İstanbul')).toEqual([]) // İ folds to i + U+0307, which "Istanbul" does not hold
      expect(await search('istanbul')).toEqual([1])
      expect(await search('i̇zmir')).toEqual([2])
      expect(await search('izmir')).toEqual([])
      expect(await search('CAFÉ')).toEqual([2]) // precomposed É finds e + U+0301
      expect(await search('cafe')).toEqual([]) // and "cafe" is not half of "café"
      expect(await count('s')).toBe(2)
      expect(await stores.students.count({ where: [{ field: 'lastName', op: 'contains', value: 'SS' }] })).toBe(1)
      const addresses = async (field: 'name' | 'city' | 'postalCode', value: string): Promise<bigint[]> =>
        (await stores.addresses.query({ where: [{ field, op: 'contains', value }], sort: [] })).map((a) => a.id)
      expect(await addresses('name', 'άρης')).toEqual([1n])
      expect(await addresses('city', 'københavn')).toEqual([1n])
      expect(await addresses('postalCode', 'ss1')).toEqual([1n])
      expect(await addresses('city', 'FLENS')).toEqual([7n])
      expect(await addresses('postalCode', '\u212A')).toEqual([7n])
    })
  })
}

/**
 * Canonical caseless matching for ALPHABET, written independently of the stores'
 * generated table: NFD, each letter's CaseFolding.txt mapping of status C or F
 * (copied here by hand), NFC. Precomposed Ä, İ and Ά reach the table decomposed,
 * and the Kelvin sign as K (its canonical decomposition).
 */
const FOLDING: Readonly<Record<string, string>> = {
  A: 'a', B: 'b', Z: 'z', I: 'i', K: 'k', S: 's', F: 'f', Σ: 'σ', ς: 'σ', ß: 'ss', ẞ: 'ss', ﬁ: 'fi', Α: 'α'
}
function referenceFold (text: string): string {
  return [...text.normalize('NFD')].map((c) => FOLDING[c] ?? c).join('').normalize('NFC')
}

/** Code point order, written independently of the stores' compareText. */
function compareText (a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) as number)
  const y = [...b].map((c) => c.codePointAt(0) as number)
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number)
  return x.length - y.length
}

function compare (a: unknown, b: unknown): number {
  if (typeof a === 'string') return compareText(a, b as string)
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0
}

function holds (record: Record<string, unknown>, c: Condition): boolean {
  const v = record[c.field]
  switch (c.op) {
    case 'eq': return compare(v, c.value) === 0
    case 'ne': return compare(v, c.value) !== 0
    case 'gt': return compare(v, c.value) > 0
    case 'gte': return compare(v, c.value) >= 0
    case 'lt': return compare(v, c.value) < 0
    case 'lte': return compare(v, c.value) <= 0
    case 'contains': return referenceFold(v as string).includes(referenceFold(c.value as string))
  }
}

/** The plain reference: filter everything, sort everything; ties by id in the direction of the last sort key. */
function reference<R extends Record<string, unknown>> (records: R[], query: RecordQuery): R[] {
  const texts = records.length === 0 ? [] : Object.keys(records[0] as object).filter((k) => typeof (records[0] as R)[k] === 'string')
  return records
    .filter((r) => query.where.every((c) => holds(r, c)))
    .filter((r) => query.search === undefined || texts.some((f) => referenceFold(r[f] as string).includes(referenceFold(query.search as string))))
    .sort((a, b) => {
      for (const k of query.sort) {
        const c = compare(a[k.field], b[k.field])
        if (c !== 0) return k.descending ? -c : c
      }
      const c = compare(a.id, b.id)
      return query.sort[query.sort.length - 1]?.descending === true ? -c : c
    })
}
