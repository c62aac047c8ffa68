import { Type } from '@sinclair/typebox'
import { optionGroup, type SectionOf } from '../../config/group.js'
import { option } from '../../config/option.js'
import { basePath } from '../../config/readers.js'

/** `config.addresses`: where the address book is mounted. */
export const addressesOptions = optionGroup('addresses', Type.Object({
  // Its collection is `{base}/addresses`.
  base: option(Type.String(), {
    default: '/', flag: 'addresses-base', value: 'path', env: 'RQS_ADDRESSES_BASE', read: basePath, help: 'base path of the address book; its collection is {base}/addresses (default /)'
  }),
  enabled: option(Type.Boolean(), {
    default: true, flag: 'no-addresses', env: 'RQS_NO_ADDRESSES', negated: true, help: 'do not mount the address book service'
  })
}))

export type AddressesConfig = SectionOf<typeof addressesOptions>
