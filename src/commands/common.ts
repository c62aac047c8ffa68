import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ConfigError, resolveConfig, type Config } from '../options.js'
import { openStores } from '../stores/index.js'
import type { Stores } from '../domain/index.js'
import { collectionNames, type RecordCollection } from '../data/collection.js'
import { collectionsOf, SERVICES } from '../services/index.js'
import type { ProgressStream } from './progress.js'

/** The process streams a bulk command uses; tests pass their own. */
export interface CommandIO {
  stdin: NodeJS.ReadableStream
  stdout: NodeJS.WritableStream
  stderr: ProgressStream
  env: NodeJS.ProcessEnv
}

export const EXIT_OK = 0
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2

/** A usage error: the command prints it with its help and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

export const STORE_OPTIONS = {
  store: { type: 'string' },
  service: { type: 'string' },
  help: { type: 'boolean', short: 'h' }
} as const satisfies ParseArgsConfig['options']

export function parseCommandArgs<O extends ParseArgsConfig['options']> (argv: string[], options: O): ReturnType<typeof parseArgs<{ args: string[], options: O, allowPositionals: true, strict: true }>> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

/** The store named by --store (or RQS_STORE, DATABASE_URL): a durable one, since the memory store lives only in rqs serve. */
export function storeConfig (store: string | undefined, env: NodeJS.ProcessEnv): Config {
  let config: Config
  try {
    config = resolveConfig(store === undefined ? {} : { store }, env)
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message)
    throw err
  }
  if (config.store.kind === 'memory') {
    throw new UsageError('--store must name a database: sqlite:PATH or postgres://… (the memory store lives only inside rqs serve; load a file there with --seed)')
  }
  return config
}

/** The record collections the built-in services declare: what `--service` may name. */
export const COLLECTIONS: readonly RecordCollection[] = collectionsOf(SERVICES)

export function collectionFrom (service: string | undefined): RecordCollection {
  if (service === undefined) throw new UsageError(`--service is required: ${collectionNames(COLLECTIONS)}`)
  const collection = COLLECTIONS.find((c) => c.name === service)
  if (collection === undefined) throw new UsageError(`--service must be ${collectionNames(COLLECTIONS)}, got "${service}"`)
  return collection
}

export async function withStores<T> (config: Config, work: (stores: Stores) => Promise<T>): Promise<T> {
  const stores = await openStores(config.store)
  try {
    return await work(stores)
  } finally {
    await stores.close()
  }
}
