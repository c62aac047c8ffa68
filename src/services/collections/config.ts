import { readFileSync } from 'node:fs'
import { dirname, isAbsolute, resolve } from 'node:path'
import { Type } from '@sinclair/typebox'
import { ConfigError, type OptionGroup } from '../../config.js'
import { option } from '../../config/option.js'
import { readSection, type ConfigInput } from '../../config/read.js'
import { checkCollections as checkDeclarations, OWN_NAMES, type CollectionSchema } from './declare.js'
import { checkDefaults } from './defaults.js'

/** `config.collections`: the user's collections, read and checked while the configuration is resolved. */
export interface CollectionsConfig {
  /** Where they were declared (a file, or the configuration file), for messages; none when there are none. */
  source?: string
  declared: readonly CollectionSchema[]
  /** The admin API of collections runs (create, change, remove while the server runs), also with none declared. */
  api?: boolean
}

export const COLLECTIONS_FLAG = 'collections'
export const COLLECTIONS_ENV = 'RQS_COLLECTIONS'

/** For `--help` and the parser: the flag takes a file name. */
const options = Type.Object({
  file: option(Type.Optional(Type.String()), {
    flag: COLLECTIONS_FLAG,
    value: 'file',
    env: COLLECTIONS_ENV,
    help: 'JSON file declaring your own collections: {"collections": {"books": {"schema": {…}, "ids": "sequence"|"uuid"}}} (each served at /<name>)'
  }),
  api: option(Type.Boolean(), {
    default: false,
    flag: 'collections-api',
    env: 'RQS_COLLECTIONS_API',
    help: 'serve the admin API of collections (POST/PUT/DELETE /collections/{name}) also when no collection is declared; it runs whenever one is (admin scope; without auth, loopback only)'
  })
})
const apiOption = Type.Object({ api: options.properties.api })

/**
 * Read by hand rather than with readSection: in a configuration file the
 * `collections` key may hold the declarations themselves (an object) as well
 * as a file name, which no flag reader can take.
 */
export const collectionsOptions: OptionGroup<'collections', CollectionsConfig> = {
  key: 'collections',
  options,
  read: (input) => ({ ...readCollections(input), ...(readSection(apiOption, input).api === true ? { api: true } : {}) })
}

function readCollections ({ flags, env, file }: ConfigInput): CollectionsConfig {
  const flag = flags[COLLECTIONS_FLAG]
  const fromFlag = Array.isArray(flag) ? flag.at(-1) : flag
  if (typeof fromFlag === 'string') return fromFile(fromFlag, `--${COLLECTIONS_FLAG}`)
  const fromEnv = env[COLLECTIONS_ENV]
  if (fromEnv !== undefined) return fromFile(fromEnv, COLLECTIONS_ENV)
  if (file !== undefined && Object.hasOwn(file.values, COLLECTIONS_FLAG)) {
    const value = file.values[COLLECTIONS_FLAG]
    // A file name in a configuration file is relative to it, as a reader of the file expects.
    if (typeof value === 'string') return fromFile(isAbsolute(value) ? value : resolve(dirname(file.name), value), `${COLLECTIONS_FLAG} in ${file.name}`)
    return { source: file.name, declared: checkCollections(value, file.name) }
  }
  return { declared: [] }
}

/**
 * Refuses a declared collection named as one the stores keep for another
 * service (`others`: their declarations' names, the built-in collections) or
 * as one of this service's own names; a ConfigError naming where it was declared.
 */
export function refuseTakenNames ({ source, declared }: CollectionsConfig, others: readonly string[]): void {
  const taken = [...others, ...OWN_NAMES]
  for (const { declaration: { name } } of declared) {
    if (taken.includes(name)) throw new ConfigError(`${source ?? COLLECTIONS_FLAG}: collections.${name}: "${name}" is taken by rqs (${taken.join(', ')} are): choose another name`)
  }
}

/** The declarations, then their defaults against their own fields' rules (./defaults.ts). */
function checkCollections (value: unknown, source: string, others: readonly CollectionSchema[] = []): CollectionSchema[] {
  const collections = checkDeclarations(value, source, others)
  checkDefaults(collections, source)
  return collections
}

/**
 * One collection's declaration as the admin API receives it (the file's
 * form of one collection), checked as a start would check it; a ConfigError
 * names the JSON path. Its references may name the built-in collections and
 * those of `others` (the collections served now).
 */
export function checkOneCollection (name: string, source: unknown, others: readonly CollectionSchema[] = []): CollectionSchema {
  return checkCollections({ [name]: source }, `collection ${name}`, others.filter((c) => c.declaration.name !== name))[0] as CollectionSchema
}

/** A collections file: one JSON object, `{"collections": {…}}`. */
export function fromFile (path: string, name: string): CollectionsConfig {
  if (path === '') throw new ConfigError(`${name} must not be empty`)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message
    throw new ConfigError(`cannot read the collections file ${path} (${name}): ${reason}`)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (err) {
    throw new ConfigError(`${path} is not valid JSON: ${(err as Error).message}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, COLLECTIONS_FLAG)) {
    throw new ConfigError(`${path} must hold one JSON object {"collections": {"<name>": {"schema": {…}}}}`)
  }
  const extra = Object.keys(value).find((key) => key !== COLLECTIONS_FLAG)
  if (extra !== undefined) throw new ConfigError(`${path}: unknown member "${extra}"; the file holds only "collections"`)
  return { source: path, declared: checkCollections((value as Record<string, unknown>)[COLLECTIONS_FLAG], path) }
}
