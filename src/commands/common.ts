import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ConfigError, defaultConfig, resolveConfig, type Config } from '../options.js'
import { openStores } from '../stores/index.js'
import type { CollectionDeclaration, RecordStores } from '../domain/index.js'
import { collectionNames, type ServedCollection } from '../data/collection.js'
import { collectionsOf, declarationsOf, SERVICES } from '../services/index.js'
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
  collections: { type: 'string' },
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
export function storeConfig (store: string | undefined, env: NodeJS.ProcessEnv, collections?: string): Config {
  let config: Config
  try {
    config = resolveConfig({ ...(store === undefined ? {} : { store }), ...(collections === undefined ? {} : { collections }) }, env)
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message)
    throw err
  }
  if (config.store.kind === 'memory') {
    throw new UsageError('--store must name a database: sqlite:PATH or postgres://… (the memory store lives only inside rqs serve; load a file there with --seed)')
  }
  return config
}

/** The record collections the built-in services declare: what `--service` may name without `--collections`. */
export const COLLECTIONS: readonly ServedCollection[] = collectionsOf(SERVICES, defaultConfig())

/** The usage text's line for `--collections`. */
export const COLLECTIONS_HELP = 'JSON file of your declared collections (or RQS_COLLECTIONS), as rqs serve reads it: --service may name them'

/**
 * The collection `--service` names: a built-in one, or one declared in the
 * `--collections` file (or RQS_COLLECTIONS), read and checked as rqs serve does.
 */
export function collectionFrom (service: string | undefined, collectionsFile: string | undefined, env: NodeJS.ProcessEnv): ServedCollection {
  const all = collectionsFrom(collectionsFile, env).collections
  if (service === undefined) throw new UsageError(`--service is required: ${collectionNames(all)}`)
  const collection = all.find((c) => c.name === service)
  if (collection === undefined) {
    // Without a declarations file only the built-in collections are known: a declared one needs --collections.
    const hint = collectionsFile === undefined && env.RQS_COLLECTIONS === undefined ? ` (a collection you declared needs --collections FILE, or RQS_COLLECTIONS, naming its declarations)` : ''
    throw new UsageError(`--service must be ${collectionNames(all)}, got "${service}"${hint}`)
  }
  return collection
}

/** Every collection a command may name (the built-in ones, and those of the --collections file or RQS_COLLECTIONS), with their declarations. */
export function collectionsFrom (collectionsFile: string | undefined, env: NodeJS.ProcessEnv): { collections: readonly ServedCollection[], declarations: readonly CollectionDeclaration[] } {
  let config = defaultConfig()
  if (collectionsFile !== undefined || env.RQS_COLLECTIONS !== undefined) {
    try {
      config = resolveConfig(collectionsFile === undefined ? {} : { collections: collectionsFile }, env)
    } catch (err) {
      if (err instanceof ConfigError) throw new UsageError(err.message)
      throw err
    }
  }
  return { collections: collectionsOf(SERVICES, config), declarations: declarationsOf(SERVICES, config) }
}

export async function withStores<T> (config: Config, work: (stores: RecordStores) => Promise<T>): Promise<T> {
  const stores = await openStores(config.store, undefined, declarationsOf(SERVICES, config))
  try {
    return await work(stores)
  } finally {
    await stores.close()
  }
}
