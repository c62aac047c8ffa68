import { isDeepStrictEqual } from 'node:util'
import { blocked, CollectionChangedError, planChange, SchemaChangedError, SchemaChangeFailedError, type CollectionDeclaration, type RecordStores, type SavedDeclaration, type SchemaChanges, type SchemaFindings, type SchemaHistoryEntry, type SchemaPlan } from '../../domain/index.js'
import type { CollectionSchema } from './declare.js'

/**
 * The collections a server serves as declarations, on the server instance
 * (never in a module): those of the declarations file and those created
 * through the admin API, each with its version. `change` plans a new
 * declaration against the records held, applies it in the stores, records
 * it in their history and tells every listener (REST, the listing,
 * OpenAPI, GraphQL, the web app). A request keeps the entry it started with:
 * entries are never changed in place, a change makes a new one. On stores
 * several instances share (`follow`), another instance's change is taken
 * over from the stores and told to the same listeners, as a local one is.
 */

/** One collection as the registry holds it. */
export interface CollectionEntry {
  name: string
  /** 1 when first declared, one more with every change. */
  version: number
  schema: CollectionSchema
  /** Declared in the declarations file, or created through the admin API. */
  origin: 'file' | 'api'
}

/** What listeners hear after a change was applied. */
export interface CollectionChange {
  name: string
  /** The registry's version after the change (one more with every change of any collection). */
  registryVersion: number
  before?: CollectionEntry
  /** Undefined once removed. */
  after?: CollectionEntry
  plan: SchemaPlan
  caller: string
}

export type CollectionChangeListener = (change: CollectionChange) => void

/** A plan with what it meets in the records held. */
export interface PlannedChange {
  plan: SchemaPlan
  findings: SchemaFindings
}

/** Why a change was not applied: the plan refuses it, records block it, it drops data unconfirmed, or the store could not finish it (its work undone). */
export class ChangeRefused extends Error {
  override name = 'ChangeRefused'
  constructor (readonly reason: 'refused' | 'blocked' | 'unconfirmed' | 'failed', readonly planned: PlannedChange, failure?: string) {
    super(failure ?? (reason === 'refused' ? planned.plan.refused.join('; ') : reason === 'blocked' ? 'records held block the change' : 'the change drops stored values'))
  }
}

export interface ChangeOptions {
  /** The caller confirmed that values are lost (`?confirm=drop`, or the collection's name to remove it). */
  confirmDrop: boolean
}

export class CollectionRegistry {
  #version = 0
  readonly #entries = new Map<string, CollectionEntry>()
  readonly #listeners = new Set<CollectionChangeListener>()
  readonly #stores: RecordStores
  /** Changes run one after the other: each plans against what the one before it left. */
  #queue: Promise<unknown> = Promise.resolve()
  /** How a kept declaration is read, from `load`: other instances' changes are read the same way. */
  #parse: ((name: string, source: unknown, others: readonly CollectionSchema[]) => CollectionSchema) | undefined
  #skipped: (name: string, err: unknown) => void = () => {}
  /** A catch-up with the stores is queued and has not started: another request for one joins it. */
  #followQueued = false

  constructor (stores: RecordStores, declared: readonly CollectionSchema[]) {
    this.#stores = stores
    for (const schema of declared) this.#entries.set(schema.declaration.name, { name: schema.declaration.name, version: 1, schema, origin: 'file' })
  }

  /** One more with every change of any collection. */
  get version (): number {
    return this.#version
  }

  entries (): CollectionEntry[] {
    return [...this.#entries.values()]
  }

  get (name: string): CollectionEntry | undefined {
    return this.#entries.get(name)
  }

  /** Hears every applied change; answers the function that stops it. */
  onChange (listener: CollectionChangeListener): () => void {
    this.#listeners.add(listener)
    return () => { this.#listeners.delete(listener) }
  }

  /**
   * Serves again the collections created through the admin API before this
   * start (their stores' tables are opened as they were), and takes the
   * versions of those the file declares from the history. `parse` reads a
   * stored declaration; one that no longer reads is skipped and reported.
   */
  async load (parse: (name: string, source: unknown, others: readonly CollectionSchema[]) => CollectionSchema, skipped: (name: string, err: unknown) => void): Promise<void> {
    this.#parse = parse
    this.#skipped = skipped
    const schema = this.#schema()
    if (schema === undefined) return
    const saved = await schema.saved()
    for (const held of this.#entries.values()) await this.#recordStart(schema, held, saved.find((s) => s.name === held.name), parse)
    // Referenced collections first: each round serves those whose references name collections served already.
    let waiting = (await schema.saved()).filter((s) => !this.#entries.has(s.name) && s.source !== null)
    while (waiting.length > 0) {
      const failed = new Map<string, unknown>()
      for (const saved of waiting) {
        try {
          const parsed = parse(saved.name, saved.source, this.#schemas())
          await schema.open(parsed.declaration)
          this.#entries.set(saved.name, { name: saved.name, version: saved.version, schema: parsed, origin: 'api' })
        } catch (err) {
          failed.set(saved.name, err)
        }
      }
      if (failed.size === waiting.length) {
        for (const [name, err] of failed) skipped(name, err)
        break
      }
      waiting = waiting.filter((s) => failed.has(s.name))
    }
    // Stores that several instances share write each collection only under the version held now.
    for (const entry of this.#entries.values()) schema.shared?.pin(entry.name, entry.version)
  }

  /**
   * Follows the changes other instances make on the same stores (those that
   * are shared: PostgreSQL), from now until the answered function is
   * called: each is read from the stores, its collection's store opened as
   * the change left it, and told to the listeners as a local change is.
   * `failed` hears a catch-up that could not read the stores (the next one
   * tries again). Nothing to follow on stores of one instance.
   */
  follow (failed: (err: unknown) => void): () => void {
    const shared = this.#schema()?.shared
    if (shared === undefined) return () => {}
    let following = true
    // A catch-up still running when the server closes meets closed stores: no failure to report.
    const report = (err: unknown): void => { if (following) failed(err) }
    const stop = shared.watch(() => { this.#followSoon(report) })
    // A change made between load and watch was announced to nobody here.
    this.#followSoon(report)
    return () => {
      following = false
      stop()
    }
  }

  /** Queues one catch-up with the stores (after any change under way), unless one is queued already. */
  #followSoon (failed: (err: unknown) => void): void {
    if (this.#followQueued) return
    this.#followQueued = true
    const run = this.#queue.then(async () => {
      this.#followQueued = false
      await this.#followOthers()
    })
    this.#queue = run.catch(failed)
  }

  /** Takes over every declaration the stores hold at a newer version than this registry (or removed since). */
  async #followOthers (): Promise<void> {
    const schema = this.#schema()
    const parse = this.#parse
    if (schema?.shared === undefined || parse === undefined) return
    for (const saved of await schema.saved()) {
      const before = this.#entries.get(saved.name)
      if (before === undefined ? saved.source === null : before.version >= saved.version) continue
      let next: CollectionSchema | undefined
      if (saved.source === null) {
        schema.shared.forget(saved.name)
      } else {
        try {
          next = parse(saved.name, saved.source, this.#schemas().filter((held) => held.declaration.name !== saved.name))
        } catch (err) {
          this.#skipped(saved.name, err)
          continue
        }
        await schema.open(next.declaration)
        schema.shared.pin(saved.name, saved.version)
      }
      const recorded = (await schema.history(saved.name)).find((e) => e.version === saved.version)
      const plan = recorded?.plan ?? planChange(saved.name, before?.schema.declaration, next?.declaration, next?.renamedFrom)
      const after: CollectionEntry | undefined = next === undefined ? undefined : { name: saved.name, version: saved.version, schema: next, origin: before?.origin ?? 'api' }
      this.#told({ name: saved.name, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }), plan, caller: recorded?.caller ?? 'another instance' })
    }
  }

  /** Makes `after` the collection's entry (none: removed), moves the registry's version and tells every listener. */
  #told (change: Omit<CollectionChange, 'registryVersion'>): CollectionChange {
    if (change.after === undefined) this.#entries.delete(change.name)
    else this.#entries.set(change.name, change.after)
    this.#version++
    const told: CollectionChange = { ...change, registryVersion: this.#version }
    for (const listener of this.#listeners) listener(told)
    return told
  }

  #schemas (): CollectionSchema[] {
    return [...this.#entries.values()].map((e) => e.schema)
  }

  /** The collections whose references name `name`, with the fields that do. */
  referring (name: string): Array<{ collection: string, fields: string[] }> {
    return [...this.#entries.values()].flatMap((e) => {
      if (e.name === name) return []
      const fields = Object.entries(e.schema.declaration.references ?? {}).filter(([, r]) => r.collection === name).map(([field]) => field)
      return fields.length === 0 ? [] : [{ collection: e.name, fields }]
    })
  }

  /**
   * A collection of the declarations file, whose tables the stores brought
   * in step as they opened: a new version when its declaration differs from
   * the one kept, with the plan from that one (caller `start`), so the kept
   * declarations (and `rqs collections export`) are complete.
   */
  async #recordStart (schema: SchemaChanges, held: CollectionEntry, saved: SavedDeclaration | undefined, parse: (name: string, source: unknown, others: readonly CollectionSchema[]) => CollectionSchema): Promise<void> {
    if (saved !== undefined && isDeepStrictEqual(saved.source, held.schema.source ?? null)) {
      this.#entries.set(held.name, { ...held, version: saved.version })
      return
    }
    let before: CollectionDeclaration | undefined
    try {
      before = saved?.source === null || saved === undefined ? undefined : parse(held.name, saved.source, this.#schemas()).declaration
    } catch {
      before = undefined // a kept declaration this build no longer reads: planned as new
    }
    const version = (saved?.version ?? 0) + 1
    const plan = planChange(held.name, before, held.schema.declaration, held.schema.renamedFrom)
    await schema.record({ name: held.name, version, source: held.schema.source ?? null, at: new Date().toISOString(), caller: 'start', plan })
    this.#entries.set(held.name, { ...held, version })
  }

  /** What changing `name` to `next` (undefined: removing it) would do to the records held. */
  async plan (name: string, next: CollectionSchema | undefined): Promise<PlannedChange> {
    const before = this.#entries.get(name)?.schema
    const plan = planChange(name, before?.declaration, next?.declaration, next?.renamedFrom)
    const schema = this.#schema()
    const findings = before === undefined || schema === undefined
      ? { records: 0, lost: {}, unconvertible: [], duplicates: [] }
      : await schema.inspect(plan, before.declaration)
    return { plan, findings }
  }

  /**
   * Plans and applies a change, one at a time: refused (ChangeRefused) when
   * the plan refuses it, records block it, or it drops values without
   * `confirmDrop`. Answers the change listeners heard.
   */
  async change (name: string, next: CollectionSchema | undefined, caller: string, options: ChangeOptions): Promise<CollectionChange & PlannedChange> {
    const run = this.#queue.then(async () => await this.#change(name, next, caller, options))
    this.#queue = run.catch(() => {})
    return await run
  }

  async history (name: string): Promise<SchemaHistoryEntry[]> {
    return await this.#schema()?.history(name) ?? []
  }

  async #change (name: string, next: CollectionSchema | undefined, caller: string, options: ChangeOptions): Promise<CollectionChange & PlannedChange> {
    const schema = this.#schema()
    if (schema === undefined) throw new RangeError('these stores cannot change collections while the server runs')
    // Planned against the declaration the stores hold now, whichever instance changed it last.
    await this.#followOthers()
    const before = this.#entries.get(name)
    const planned = await this.plan(name, next)
    const { plan, findings } = planned
    if (plan.refused.length > 0) throw new ChangeRefused('refused', planned)
    if (blocked(findings)) throw new ChangeRefused('blocked', planned)
    if (plan.dropsData && !options.confirmDrop) throw new ChangeRefused('unconfirmed', planned)
    const version = (before?.version ?? (await schema.history(name)).at(-1)?.version ?? 0) + 1
    const entry: SchemaHistoryEntry = { name, version, source: next?.source ?? null, at: new Date().toISOString(), caller, plan }
    // This instance's own change, which the writes of the declaration before it still fit (fields added, with a
    // default or optional): its store keeps writing across the switch, so writes keep flowing (no 503 for them).
    const fitting = before !== undefined && next !== undefined && oldWritesFit(plan, next.declaration)
    if (fitting) schema.shared?.pin(name, before.version, version)
    try {
      await schema.apply(plan, before?.schema.declaration, next?.declaration, entry)
    } catch (err) {
      if (fitting) schema.shared?.pin(name, before.version)
      // Another instance changed the collection between this plan and its application: nothing was applied.
      if (err instanceof SchemaChangedError) await this.#followOthers().catch(() => {})
      if (err instanceof SchemaChangeFailedError) throw new ChangeRefused('failed', planned, err.reason)
      // The records held do not fit the new declaration after all (a new reference naming records that do not exist).
      if (err instanceof CollectionChangedError) throw new ChangeRefused('failed', planned, err.changes.join('; '))
      throw err
    }
    if (next !== undefined) schema.shared?.pin(name, version)
    const after: CollectionEntry | undefined = next === undefined ? undefined : { name, version, schema: next, origin: before?.origin ?? 'api' }
    const change = this.#told({ name, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }), plan, caller })
    return { ...change, findings }
  }

  #schema (): SchemaChanges | undefined {
    return this.#stores.schema
  }
}

/** The declarations the stores keep, for those who need only them. */
export function declarationsOf (registry: CollectionRegistry): CollectionDeclaration[] {
  return registry.entries().map((e) => e.schema.declaration)
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The collections as declarations, changed by the admin API (when the collections service runs). */
    collectionRegistry?: CollectionRegistry
  }
}

/**
 * Whether a write made with the declaration before `plan` still stores a
 * record the new declaration accepts: nothing dropped, renamed or
 * converted, and every added field optional or filled by its default.
 */
function oldWritesFit (plan: SchemaPlan, next: CollectionDeclaration): boolean {
  if (plan.dropped.length > 0 || plan.renamed.length > 0 || plan.converted.length > 0 || plan.uniqueAdded.length > 0) return false
  return plan.added.every(({ field, default: value }) => value !== undefined || next.fields[field]?.required !== true)
}
