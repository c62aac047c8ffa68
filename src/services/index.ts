import type { Config } from '../config.js'
import { addressesService } from './addresses/index.js'
import { albumsService } from './albums/index.js'
import { appService } from './app/index.js'
import { eventsService } from './events/index.js'
import { directory } from './home/index.js'
import { studentsService } from './students/index.js'
import type { DirectoryLink, ServiceDescriptor } from './types.js'

/** Every service this server can run, in the order of the entry point's directory. Adding one is one line here. */
export const SERVICES: readonly ServiceDescriptor[] = [studentsService, addressesService, albumsService, eventsService, appService]

/** The services a Config turns on. */
export function enabledServices (config: Config): ServiceDescriptor[] {
  return SERVICES.filter((s) => s.enabled(config))
}

/** The entry point's directory for a Config: every link `GET /` lists (the CLI's start-up summary prints them). */
export function directoryLinks (config: Config): DirectoryLink[] {
  return directory(enabledServices(config).flatMap((s) => s.links(config)))
}
