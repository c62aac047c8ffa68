import type { ServiceDescriptor } from '../types.js'
import { addressesOptions } from './config.js'
import { ADDRESS_ERRORS } from './errors.js'
import { ADDRESSES } from './collection.js'
import { prefixOf } from '../types.js'
import { KeptLists, KeptPages, RecordEtags } from '../../http/rest/index.js'
import { collectionStore } from '../records/routes.js'
import { ADDRESSES_DECLARATION } from './records.js'
import { ADDRESS_REPRESENTATIONS, type AddressRoutesOptions } from './routes.js'

/** The address book service: its collection at `{base}/addresses`, in every version. */
export const addressesService: ServiceDescriptor<typeof addressesOptions> = {
  name: 'addresses',
  options: addressesOptions,
  errors: ADDRESS_ERRORS,
  declarations: () => [ADDRESSES_DECLARATION],
  collections: [ADDRESSES],
  versions: ADDRESS_REPRESENTATIONS.map((r) => r.version),
  enabled: (config) => config.addresses.enabled,
  links: (config) => [{ rel: 'addresses', href: `${prefixOf(config.addresses.base)}/addresses`, title: 'Address book service (REST)', type: 'application/json' }],
  tags: [{ name: 'addresses', description: 'Postal addresses with 64-bit ids: POST creates, PUT updates or creates; ETag and If-Match.' }],
  paths: (config) => [{ path: `${prefixOf(config.addresses.base)}/addresses`, option: 'addresses-base' }],
  register: async (app, { config, stores }) => {
    await app.mountRest<AddressRoutesOptions>(config.addresses.base, {
      name: 'addresses',
      resources: '/addresses',
      representations: ADDRESS_REPRESENTATIONS,
      options: { records: collectionStore(stores, 'addresses'), vendor: config.versioning.vendor, pages: new KeptPages(), lists: new KeptLists(), etags: new RecordEtags() }
    })
  }
}
