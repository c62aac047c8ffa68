import {
  connectionsGroup, ConfigError, readGroups, readSection, rulesGroup, securityGroup, serverOptions, storeGroup, versioningGroup, declaredOptions,
  type ConfigFile, type CoreConfig, type DeclaredOption, type Flags, type OptionGroup, type ServerConfig
} from './config.js'
import { declarationsOf, SERVICES } from './services/index.js'
import { collectionsService } from './services/collections/index.js'
import { refuseTakenNames } from './services/collections/config.js'
import { checkEventsConfig } from './services/events/config.js'
import type { ServiceDescriptor, ServiceSections } from './services/types.js'

/*
 * The whole configuration: the server's own settings (src/config.ts) and the
 * section every built-in service brings in its descriptor. This is the one
 * place that knows both, so nothing in src/config/ knows a service.
 */

export { API_VERSIONS, ConfigError, type ConfigFile, type DeclaredOption, type Flags } from './config.js'
export { DEFAULT_ASSETS_DIR, type StudentsConfig } from './services/students/config.js'
export { DEFAULT_GRAPHIQL_DIR, type AlbumsConfig } from './services/albums/config.js'
export type { AddressesConfig } from './services/addresses/config.js'
export type { EventsConfig } from './services/events/config.js'

/** The typed configuration object: the server's settings and a section per built-in service (`config.students.base`). */
export type Config = CoreConfig & ServiceSections<typeof SERVICES>

/**
 * The option groups in the order `rqs serve --help` lists them (after the
 * server's top-level options), which is also the order they are read in:
 * the student service's (the spec's own) first, then versioning, the other
 * services', then the store, security and connections. Extra services'
 * groups follow the built-in ones.
 */
function optionGroups (extra: readonly ServiceDescriptor[]): OptionGroup[] {
  const [first, ...others] = [...SERVICES, ...extra].flatMap((s) => s.options === undefined ? [] : [s.options])
  return [...(first === undefined ? [] : [first]), versioningGroup, ...others, storeGroup, securityGroup, connectionsGroup, rulesGroup]
}

/** Every option `rqs serve` understands with some extra services, in the order `--help` lists them. */
export function serverOptionsWith (extra: readonly ServiceDescriptor[]): DeclaredOption[] {
  return [...declaredOptions([serverOptions], 'server'), ...optionGroups(extra).flatMap((g) => declaredOptions([g.options], g.key))]
}

/** Every option `rqs serve` understands, in the order `--help` lists them. */
export const OPTIONS = serverOptionsWith([])

/**
 * Builds a Config from parsed flag values, the environment and a
 * configuration file's settings. Each setting takes its flag, else its
 * environment variable, else the file's value, else its default; the
 * sections are read in `--help` order, so the first bad option listed is the
 * one reported. `extra` services (embedding, tests) add their sections.
 */
export function resolveConfig<const E extends readonly ServiceDescriptor[] = []> (flags: Flags, env: NodeJS.ProcessEnv, file?: ConfigFile, extra?: E): Config & ServiceSections<E> {
  const input = { flags, env, file }
  // The groups read are the built-in services', the server's and extra's: the sections the type lists.
  const config = { ...readSection(serverOptions, input), ...readGroups(optionGroups(extra ?? []), input) } as Config & ServiceSections<E>
  // Combinations across sections, once every option has been read.
  checkEventsConfig(config.events, config.connections)
  checkDeclaredNames(config, extra)
  return config
}

/**
 * A declared collection may not take the name of one the stores keep for
 * another service (the built-in ones: their services' declarations, whether
 * they run or not). Checked when the Config is read, and again at start for a
 * Config made in code (makeConfig).
 */
export function checkDeclaredNames (config: Config, extra: readonly ServiceDescriptor[] = []): void {
  const others = [...SERVICES, ...extra].filter((s) => s !== collectionsService)
  // Compiles the built-in collections' rules too: a mistake stops here with its path and position.
  const builtIns = declarationsOf(others, config).map((d) => d.name)
  refuseTakenNames(config.collections, builtIns)
  refuseRulesOfOthers(config, builtIns)
}

/**
 * The configuration file's `rules` name built-in collections only: a
 * declared collection takes its rules in its declaration, and a name that
 * is no collection is a typo to point at.
 */
function refuseRulesOfOthers ({ rules, collections }: Config, builtIns: readonly string[]): void {
  for (const name of Object.keys(rules?.collections ?? {})) {
    if (builtIns.includes(name)) continue
    const where = `${rules?.source ?? 'the configuration'}: rules.${name}`
    if (collections.declared.some((c) => c.declaration.name === name)) throw new ConfigError(`${where}: ${name} is a declared collection: put its rules in its declaration (collections.${name}.rules)`)
    throw new ConfigError(`${where}: there is no built-in collection ${name} (rules here are for ${builtIns.join(', ')}; a declared collection takes its rules in its declaration)`)
  }
}

/** Every setting at its declared default. */
export function defaultConfig (): Config {
  return resolveConfig({}, {})
}

type SectionName = Exclude<keyof Config, keyof ServerConfig>

/**
 * Changes to the defaults for tests and embedding: a top-level setting is
 * replaced, a section (`students`, `albums`, …) is merged field by field,
 * so `{ albums: { maxDepth: 3 } }` keeps the other album settings.
 */
export type ConfigOverrides = Partial<ServerConfig> & { [K in SectionName]?: Partial<Config[K]> }

/** A Config for tests and embedding: the defaults with `overrides` applied. */
export function makeConfig (overrides: ConfigOverrides = {}): Config {
  const defaults: Record<string, unknown> = defaultConfig()
  const given: Record<string, unknown> = overrides
  const config: Record<string, unknown> = { ...defaults, ...overrides }
  for (const { key } of optionGroups([])) {
    // A section that is absent unless given (the built-in collections' rules) stays absent.
    if (defaults[key] === undefined && given[key] === undefined) continue
    config[key] = { ...(defaults[key] as object), ...(given[key] as object | undefined) }
  }
  // The defaults with sections merged and settings replaced: a Config, as the overrides' type allows only its fields.
  return config as Config
}
