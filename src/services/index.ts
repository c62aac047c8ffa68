import { ErrorCatalogue } from '../http/errors/index.js'
import type { Config } from '../options.js'
import { addressesService } from './addresses/index.js'
import { albumsService } from './albums/index.js'
import { appService } from './app/index.js'
import { eventsService } from './events/index.js'
import { directory } from './home/index.js'
import { studentsService } from './students/index.js'
import type { DirectoryLink, ServiceDescriptor } from './types.js'

/**
 * Every service this server can run, in the order of the entry point's
 * directory. Adding one is one line here: its options, error codes and
 * record collections come with its descriptor.
 */
export const SERVICES = [studentsService, addressesService, albumsService, eventsService, appService] as const satisfies readonly ServiceDescriptor[]

/** The services a Config turns on, of the built-in ones and `extra`. */
export function enabledServices (config: Config, extra: readonly ServiceDescriptor[] = []): ServiceDescriptor[] {
  return [...SERVICES, ...extra].filter((s) => s.enabled(config))
}

/** The error catalogue of a server running `services`: the core codes and theirs. */
export function errorCatalogue (services: readonly ServiceDescriptor[]): ErrorCatalogue {
  return new ErrorCatalogue(services.map((s) => s.errors))
}

/** The entry point's directory for a Config: every link `GET /` lists (the CLI's start-up summary prints them). */
export function directoryLinks (config: Config): DirectoryLink[] {
  return directory(enabledServices(config).flatMap((s) => s.links(config)))
}
