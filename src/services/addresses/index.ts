import type { FastifyInstance } from 'fastify'
import { mountVersioned, type ServiceMount } from '../../http/versioned-mount.js'
import { ADDRESS_REPRESENTATIONS, type AddressesServiceOptions } from './v1.js'

/** The address book at one prefix, in every version the mount serves. */
export function addressesService (mount: ServiceMount, options: AddressesServiceOptions) {
  return async function addresses (app: FastifyInstance): Promise<void> {
    await mountVersioned(app, {
      negotiator: mount.negotiator,
      fixedVersion: mount.fixedVersion,
      representations: ADDRESS_REPRESENTATIONS,
      methods: [],
      serviceOptions: options,
      deprecations: mount.deprecations,
      successor: mount.successor,
      notAcceptable: mount.notAcceptable,
      expose: mount.expose
    })
  }
}
