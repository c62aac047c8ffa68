import type { Config } from '../config.js'
import type { Stores } from './types.js'
import type { StoreLog } from './postgres/index.js'
import { MemoryStudentStore } from './memory/students.js'
import { MemoryAddressStore } from './memory/addresses.js'

/**
 * Opens the stores the configuration names: in memory by default, as the
 * spec says. The database drivers load only when asked for, so the memory
 * store starts as fast as before and needs neither native module.
 */
export async function openStores (config: Config, log?: StoreLog): Promise<Stores> {
  const store = config.store
  switch (store.kind) {
    case 'memory':
      return memoryStores()
    case 'sqlite': {
      const { openSqliteStores } = await import('./sqlite/index.js')
      return openSqliteStores({ path: store.path })
    }
    case 'postgres': {
      const { openPostgresStores } = await import('./postgres/index.js')
      return await openPostgresStores({ url: store.url, poolSize: store.poolSize, startupWaitMs: store.startupWaitMs, log })
    }
  }
}

export type { StoreLog }

export function memoryStores (): Stores {
  return {
    students: new MemoryStudentStore(),
    addresses: new MemoryAddressStore(),
    ping: async () => {},
    close: async () => {}
  }
}
