import type { StoreConfig } from '../config/store.js'
import { declarationsOf, withBuiltIns, type CollectionDeclaration, type StoreOptions, type Stores } from '../domain/index.js'
import type { StoreLog } from './postgres/index.js'
import { MemoryRecordStore } from './memory/records.js'
import { MemoryKeptWrites } from './memory/kept-writes.js'
import { MemoryChangeLog } from './memory/changes.js'
import { TableReferences } from './references.js'

/**
 * Opens the stores the configuration names: in memory by default, as the
 * spec says. The database drivers load only when asked for, so the memory
 * store starts as fast as before and needs neither native module.
 */
export async function openStores (store: StoreConfig, log?: StoreLog, collections: readonly CollectionDeclaration[] = []): Promise<Stores> {
  const common: StoreOptions = { studentIds: store.studentIds ?? 'count', changesRetentionMs: store.changesRetentionMs, collections }
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

export function memoryStores (options: StoreOptions = {}): Stores {
  const kept = new MemoryKeptWrites(options.idempotencyRetentionMs, undefined, options.clock)
  const changes = new MemoryChangeLog(options.memoryChangesKept, options.clock)
  const declarations = declarationsOf(options)
  const references = new TableReferences(declarations)
  return withBuiltIns({
    collections: new Map(declarations.map((d) => [d.name, new MemoryRecordStore(d, kept, changes, references)])),
    changes,
    ping: async () => {},
    close: async () => {}
  })
}
