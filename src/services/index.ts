import type { ServedCollection } from '../data/collection.js'
import type { CollectionDeclaration } from '../domain/index.js'
import { ErrorCatalogue } from '../http/errors/index.js'
import type { CoreConfig } from '../config.js'
import { addressesService } from './addresses/index.js'
import { albumsService } from './albums/index.js'
import { appService } from './app/index.js'
import { batchService } from './batch/index.js'
import { collectionsService } from './collections/index.js'
import { withConfiguredRules } from './collections/access.js'
import { eventsService } from './events/index.js'
import { directory } from './home/index.js'
import { studentsService } from './students/index.js'
import { webhooksService } from './webhooks/index.js'
import type { DirectoryLink, ServiceDescriptor, ServiceTag } from './types.js'

/**
 * Every service this server can run, in the order of the entry point's
 * directory. Adding one is one line here: its options, error codes and
 * record collections come with its descriptor.
 */
export const SERVICES = [studentsService, addressesService, collectionsService, albumsService, eventsService, webhooksService, batchService, appService] as const satisfies readonly ServiceDescriptor[]

/**
 * The services a Config turns on (the whole Config of src/options.ts, typed
 * here by its core: each service reads its own section), of the built-in ones
 * and `extra`. One that
 * works on other services' collections (the change feed, the web app) runs
 * only when a service it works on does.
 */
export function enabledServices (config: CoreConfig, extra: readonly ServiceDescriptor[] = []): ServiceDescriptor[] {
  const on = [...SERVICES, ...extra].filter((s) => s.enabled(config))
  const served = collectionsOf(on, config).map((c) => c.name)
  return on.filter(({ consumes }) => consumes === undefined || (consumes === 'any' ? served.length > 0 : consumes.some((name) => served.includes(name))))
}

/** The record collections some services declare under a Config, in their order. */
export function collectionsOf (services: readonly ServiceDescriptor[], config: CoreConfig): ServedCollection[] {
  return services.flatMap((s) => typeof s.collections === 'function' ? s.collections(config) : s.collections ?? [])
}

/**
 * What the stores keep for some services under a Config: every collection
 * they declare, in their order (the built-in services' first). The stores
 * open exactly these (src/server.ts, src/commands/common.ts).
 */
export function declarationsOf (services: readonly ServiceDescriptor[], config: CoreConfig): CollectionDeclaration[] {
  // The built-in collections take their rules from the configuration file (docs/rules.md).
  return withConfiguredRules(services.flatMap((s) => s.declarations?.(config) ?? []), config.rules)
}

/** The OpenAPI tags of some services under a Config. */
export function tagsOf (services: readonly ServiceDescriptor[], config: CoreConfig): ServiceTag[] {
  return services.flatMap((s) => typeof s.tags === 'function' ? s.tags(config) : s.tags)
}

/** The error catalogue of a server running `services`: the core codes and theirs. */
export function errorCatalogue (services: readonly ServiceDescriptor[]): ErrorCatalogue {
  return new ErrorCatalogue(services.map((s) => s.errors))
}

/** The entry point's directory for a Config: every link `GET /` lists (the CLI's start-up summary prints them). */
export function directoryLinks (config: CoreConfig): DirectoryLink[] {
  return directory(enabledServices(config).flatMap((s) => s.links(config)))
}
