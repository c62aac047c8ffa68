import { KINDS, MAX_BLOCKERS_SHOWN, type CollectionDeclaration, type FieldData, type RecordId, type RecordStore, type SchemaFindings, type SchemaPlan, type StoredRecord } from '../domain/index.js'

/**
 * What every store shares of a change of a collection while the server
 * runs: the findings of a plan in the records held, read in batches through
 * the store's own contract (so memory, SQLite and PostgreSQL answer alike),
 * and the record a plan makes of a record held.
 */

/** The value a converted field's new kind makes of a held value, or undefined when it takes none. */
export function convertedValue (to: CollectionDeclaration['fields'][string]['type'], value: unknown): FieldData | undefined {
  if (to === 'number') return typeof value === 'number' || typeof value === 'bigint' ? Number(value) : undefined
  const canonical = KINDS[to].canonical
  return canonical === undefined ? value as FieldData : canonical(value)
}

/** Counts the values each dropped field loses, the values that would not convert and the records that block a new unique key. */
export async function findingsOf (store: RecordStore, plan: SchemaPlan): Promise<SchemaFindings> {
  const findings: SchemaFindings = { records: 0, lost: Object.fromEntries(plan.dropped.map((f) => [f, 0])), unconvertible: [], duplicates: [] }
  // Nothing to look for in the records (fields added, renamed): their count alone, without reading them.
  if (plan.dropped.length + plan.converted.length + plan.uniqueAdded.length === 0) return { ...findings, records: await store.count({ where: [] }) }
  const bad = new Map<string, Array<{ id: RecordId, value: unknown }>>()
  const keys = plan.uniqueAdded.map((fields) => ({ fields, seen: new Map<string, RecordId>(), blocking: [] as RecordId[] }))
  const sourceOf = new Map(plan.renamed.map((r) => [r.to, r.from]))
  for await (const batch of store.batches({ where: [], sort: [] })) {
    for (const record of batch) {
      findings.records++
      for (const field of plan.dropped) if (record[field] !== undefined) findings.lost[field] = (findings.lost[field] ?? 0) + 1
      for (const { field, to } of plan.converted) {
        const value = record[sourceOf.get(field) ?? field]
        if (value === undefined || convertedValue(to, value) !== undefined) continue
        const list = bad.get(field) ?? []
        if (list.length < MAX_BLOCKERS_SHOWN) list.push({ id: record.id, value })
        bad.set(field, list)
      }
      for (const key of keys) {
        const values = key.fields.map((f) => record[sourceOf.get(f) ?? f])
        if (values.some((v) => v === undefined)) continue
        const text = JSON.stringify(values, (_k, v: unknown) => typeof v === 'bigint' ? v.toString() : v)
        const holder = key.seen.get(text)
        if (holder === undefined) { key.seen.set(text, record.id); continue }
        if (key.blocking.length >= MAX_BLOCKERS_SHOWN) continue
        if (!key.blocking.includes(holder)) key.blocking.push(holder)
        key.blocking.push(record.id)
      }
    }
  }
  findings.unconvertible = [...bad].map(([field, records]) => ({ field, records }))
  findings.duplicates = keys.filter((k) => k.blocking.length > 0).map((k) => ({ fields: k.fields, records: k.blocking }))
  return findings
}

/** The record held as the plan makes it: renamed fields moved, dropped ones gone, converted ones converted, added ones given their default. */
export function migratedRecord (record: StoredRecord, plan: SchemaPlan): StoredRecord {
  const out: Record<string, unknown> = { ...record }
  for (const { from, to } of plan.renamed) {
    out[to] = out[from]
    delete out[from]
  }
  for (const field of plan.dropped) delete out[field]
  for (const { field, to } of plan.converted) if (out[field] !== undefined) out[field] = convertedValue(to, out[field])
  for (const { field, default: value } of plan.added) if (value !== undefined && out[field] === undefined) out[field] = value
  return out as StoredRecord
}
