import type { StoreConfig } from '../config/store.js'
import type { CollectionDeclaration, ImportOutcome, KeyedWrite, RecordStores, StoreOptions, UnitOfWork } from '../domain/index.js'
import type { StoreLog } from './postgres/index.js'
import { MemoryRecordStore } from './memory/records.js'
import { MemoryKeptWrites } from './memory/kept-writes.js'
import { MemoryChangeLog } from './memory/changes.js'
import { MemoryWebhookStore } from './memory/webhooks.js'
import { MemoryUnit } from './memory/unit.js'
import { runUnit } from './unit.js'
import { TableReferences } from './references.js'
import { MemorySchema } from './memory/schema.js'
import { ReadBudget } from './read-budget.js'

/**
 * Opens the stores the configuration names: in memory by default, as the
 * spec says. The database drivers load only when asked for, so the memory
 * store starts as fast as before and needs neither native module. The
 * stores keep the collections they are given (the services' declarations,
 * handed over by the composition root) and know of no other.
 */
/** `readBudgetMs`: how long one read may take (`--read-budget`; 0, the default, for the commands: no bound). */
export async function openStores (store: StoreConfig, log: StoreLog | undefined, collections: readonly CollectionDeclaration[], readBudgetMs = 0): Promise<RecordStores> {
  const common: StoreOptions = { changesRetentionMs: store.changesRetentionMs, collections, readBudgetMs }
  switch (store.kind) {
    case 'memory':
      return memoryStores(common)
    case 'sqlite': {
      const { openSqliteStores } = await import('./sqlite/index.js')
      return openSqliteStores({ ...common, path: store.path })
    }
    case 'postgres': {
      const { openPostgresStores } = await import('./postgres/index.js')
      return await openPostgresStores({ ...common, url: store.url, poolSize: store.poolSize, startupWaitMs: store.startupWaitMs, log })
    }
  }
}

export type { StoreLog }
export { observeFailures, type StoreFailureListener } from './observed.js'

export function memoryStores (options: StoreOptions = {}): RecordStores {
  const kept = new MemoryKeptWrites(options.idempotencyRetentionMs, undefined, options.clock)
  const changes = new MemoryChangeLog(options.memoryChangesKept, options.clock)
  const declarations = options.collections ?? []
  const references = new TableReferences<MemoryUnit>(declarations)
  const budget = new ReadBudget(options.readBudgetMs ?? 0)
  const collections = new Map(declarations.map((d) => [d.name, new MemoryRecordStore(d, kept, changes, references, budget)]))
  return {
    collections,
    // A collection created or changed while the server runs takes part in the references as those declared at start do.
    schema: new MemorySchema(collections, (d) => new MemoryRecordStore(d, kept, changes, references, budget), references),
    changes,
    webhooks: new MemoryWebhookStore(),
    atomically: async <R>(work: (unit: UnitOfWork) => Promise<R>, keyed?: KeyedWrite<R>) => await new Promise<R>((resolve, reject) => {
      // A fresh turn of the event loop: no other request's code is queued before the unit (see runUnit).
      setImmediate(() => {
        let unit: MemoryUnit | undefined
        runUnit<R>({
          begin: () => { if (keyed !== undefined) kept.claim(keyed) },
          work: async (open) => {
            const started = unit = new MemoryUnit(open)
            return await work({ collections: new Map([...collections].map(([name, store]) => [name, store.writesIn(started)])) })
          },
          commit: (result) => {
            unit?.commit(changes)
            if (keyed !== undefined) kept.keep(keyed, result)
          },
          rollback: () => { unit?.rollback() }
        }).then(resolve, reject)
      })
    }),
    importAllOf: async (parts) => {
      // Every source read first; then all applied at once, each write on one undo log, the changes logged at the end.
      const staged = []
      for (const part of parts) {
        const store = collections.get(part.collection)
        if (store === undefined) throw new TypeError(`no collection "${part.collection}" to import into`)
        staged.push({ store, part, ...await store.stageImport(part.source) })
      }
      const unit = new MemoryUnit(() => {})
      const outcomes: ImportOutcome[] = []
      try {
        for (const { store, staged: records } of staged) outcomes.push(store.applyImport(records, unit))
      } catch (err) {
        unit.rollback()
        throw err
      }
      unit.commit(changes)
      for (const [i, { part }] of staged.entries()) part.onApplied?.(outcomes[i] as ImportOutcome)
      return staged.map(({ count }) => count)
    },
    ping: async () => {},
    close: async () => {}
  }
}
