import type { RecordStore } from '../../src/domain/index.js'
import type { Stores } from './built-ins.js'

/**
 * The stores with each collection's record store passed through `change`
 * (the record routes read these): a fault, a race or a watch injected where
 * a request meets the store.
 */
export function withRecordStores (stores: Stores, change: (store: RecordStore, name: string) => RecordStore): Stores {
  return { ...stores, collections: new Map([...stores.collections].map(([name, store]) => [name, change(store, name)])) }
}

/** A record store with some methods replaced; the rest (and the declaration, the revision) are the store's own. */
export function overriding (store: RecordStore, methods: Partial<RecordStore>): RecordStore {
  return new Proxy(store, {
    get: (target, key) => {
      if (Object.hasOwn(methods, key)) return (methods as Record<string | symbol, unknown>)[key]
      const value: unknown = Reflect.get(target, key)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    }
  })
}
