import { addressesOptions, type AddressesConfig } from './services/addresses/config.js'
import { albumsOptions, type AlbumsConfig } from './services/albums/config.js'
import { checkEventsConfig, eventsOptions, type EventsConfig } from './services/events/config.js'
import { studentsOptions, type StudentsConfig } from './services/students/config.js'
import { resolveSecurity, securityOptions, type SecurityConfig } from './http/security/config.js'
import { declaredOptions, readSection, type ConfigFile, type Flags } from './config/read.js'
import { serverOptions, type ServerConfig } from './config/server.js'
import { connectionsOptions, type ConnectionLimits } from './config/connections.js'
import { resolveStore, storeOptions, type StoreConfig } from './config/store.js'
import { versioningOptions, type VersioningConfig } from './config/versioning.js'

/*
 * The one typed configuration object. Every setting is declared once, with
 * option() in its section: the server's in src/config/server.ts, versioning and
 * the store in src/config/, each service's in its own folder (config.ts). That
 * declaration gives the type, the default, the flag, the environment variable
 * and the help line, so `--help`, the parser and the types never disagree.
 */

export { ConfigError } from './config/errors.js'
export { normaliseBase } from './config/readers.js'
export type { ConfigFile, DeclaredOption, Flags } from './config/read.js'
export { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel, type ServerConfig } from './config/server.js'
export type { ConnectionLimits } from './config/connections.js'
export { STORE_KINDS, type StoreConfig, type StoreKind } from './config/store.js'
export { API_VERSIONS, type VersioningConfig } from './config/versioning.js'
export { DEFAULT_ASSETS_DIR, type StudentsConfig } from './services/students/config.js'
export type { AddressesConfig } from './services/addresses/config.js'
export type { EventsConfig } from './services/events/config.js'
export type { SecurityConfig } from './http/security/config.js'
export { DEFAULT_GRAPHIQL_DIR, type AlbumsConfig } from './services/albums/config.js'

export interface Config extends ServerConfig {
  students: StudentsConfig
  addresses: AddressesConfig
  albums: AlbumsConfig
  events: EventsConfig
  versioning: VersioningConfig
  store: StoreConfig
  /** Authentication, CORS, headers, limits, overload, metrics, audit (issue 11); all off by default. */
  security: SecurityConfig
  /** Time limits for every phase of a request and a cap on connections (issue 10). */
  connections: ConnectionLimits
}

/** Every option `rqs serve` understands, in the order `--help` lists them. */
export const OPTIONS = declaredOptions([serverOptions, studentsOptions, versioningOptions, addressesOptions, albumsOptions, eventsOptions, storeOptions, securityOptions, connectionsOptions])

/**
 * Builds a Config from parsed flag values, the environment and a
 * configuration file's settings. Each setting takes its flag, else its
 * environment variable, else the file's value, else its default; the
 * sections are read in `--help` order, so the first bad option listed is the
 * one reported.
 */
export function resolveConfig (flags: Flags, env: NodeJS.ProcessEnv, file?: ConfigFile): Config {
  const input = { flags, env, file }
  const config: Config = {
    ...readSection(serverOptions, input),
    students: readSection(studentsOptions, input),
    versioning: readSection(versioningOptions, input),
    addresses: readSection(addressesOptions, input),
    albums: readSection(albumsOptions, input),
    events: readSection(eventsOptions, input),
    store: resolveStore(readSection(storeOptions, input)),
    security: resolveSecurity(readSection(securityOptions, input)),
    connections: readSection(connectionsOptions, input)
  }
  // Combinations across sections, once every option has been read.
  checkEventsConfig(config.events, config.connections)
  return config
}

/** Every setting at its declared default. */
export function defaultConfig (): Config {
  return resolveConfig({}, {})
}

type SectionName = 'students' | 'addresses' | 'albums' | 'events' | 'versioning' | 'store' | 'security' | 'connections'

/**
 * Changes to the defaults for tests and embedding: a top-level setting is
 * replaced, a section (`students`, `albums`, …) is merged field by field,
 * so `{ albums: { maxDepth: 3 } }` keeps the other album settings.
 */
export type ConfigOverrides = Partial<Omit<Config, SectionName>> & { [K in SectionName]?: Partial<Config[K]> }

/** A Config for tests and embedding: the defaults with `overrides` applied. */
export function makeConfig (overrides: ConfigOverrides = {}): Config {
  const defaults = defaultConfig()
  const { students, addresses, albums, events, versioning, store, security, connections, ...server } = overrides
  return {
    ...defaults,
    ...server,
    students: { ...defaults.students, ...students },
    addresses: { ...defaults.addresses, ...addresses },
    albums: { ...defaults.albums, ...albums },
    events: { ...defaults.events, ...events },
    versioning: { ...defaults.versioning, ...versioning },
    store: { ...defaults.store, ...store },
    security: { ...defaults.security, ...security },
    connections: { ...defaults.connections, ...connections }
  }
}
