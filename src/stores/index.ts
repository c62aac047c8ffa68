import type { Config } from '../config.js'
import type { Stores } from './types.js'
import { MemoryStudentStore } from './memory/students.js'
import { MemoryAddressStore } from './memory/addresses.js'

/** Opens the stores the configuration names (in memory by default, as the spec says). */
export async function openStores (_config: Config): Promise<Stores> {
  return memoryStores()
}

export function memoryStores (): Stores {
  return {
    students: new MemoryStudentStore(),
    addresses: new MemoryAddressStore(),
    ping: async () => {},
    close: async () => {}
  }
}
