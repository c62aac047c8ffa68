import { resolveSecurity, securityOptions } from './config/security.js'
import { optionGroup, type SectionsOf } from './config/group.js'
import type { ServerConfig } from './config/server.js'
import { connectionsOptions } from './config/connections.js'
import { resolveStore, storeOptions } from './config/store.js'
import { versioningOptions } from './config/versioning.js'
import type { rulesGroup } from './config/rules.js'

/*
 * The server's own configuration. Every setting is declared once, with
 * option() in its group: the server's top-level settings in
 * src/config/server.ts, versioning, the store, security and connections in
 * src/config/, each service's in its own folder (config.ts), brought by its
 * descriptor. That declaration gives the type, the default, the flag, the
 * environment variable and the help line, so `--help`, the parser and the
 * types never disagree. The whole Config, with every service's section, is
 * put together in src/options.ts, where the built-in services are known:
 * nothing here knows a service.
 */

export { ConfigError } from './config/errors.js'
export { normaliseBase } from './config/readers.js'
export type { ConfigFile, DeclaredOption, Flags } from './config/read.js'
export { declaredOptions, readSection } from './config/read.js'
export { optionGroup, readGroups, type OptionGroup, type SectionOf, type SectionsOf } from './config/group.js'
export { LOG_FORMATS, LOG_LEVELS, serverOptions, type LogFormat, type LogLevel, type ServerConfig } from './config/server.js'
export type { ConnectionLimits } from './config/connections.js'
export { STORE_KINDS, type StoreConfig, type StoreKind } from './config/store.js'
export { API_VERSIONS, type VersioningConfig } from './config/versioning.js'
export type { SecurityConfig } from './config/security.js'
export { RULES_KEY, rulesGroup, type RulesConfig } from './config/rules.js'

/** How clients choose an API version: `config.versioning`. */
export const versioningGroup = optionGroup('versioning', versioningOptions)
/** Where records live: `config.store`. */
export const storeGroup = optionGroup('store', storeOptions, resolveStore)
/** Authentication, CORS, headers, limits, overload, metrics, audit (issue 11), all off by default: `config.security`. */
export const securityGroup = optionGroup('security', securityOptions, resolveSecurity)
/** Time limits for every phase of a request and a cap on connections (issue 10): `config.connections`. */
export const connectionsGroup = optionGroup('connections', connectionsOptions)

type CoreGroup = typeof versioningGroup | typeof storeGroup | typeof securityGroup | typeof connectionsGroup | typeof rulesGroup

/** The server's settings without any service's section: what the HTTP layer, the stores and the CLI read. */
export type CoreConfig = ServerConfig & SectionsOf<CoreGroup>
