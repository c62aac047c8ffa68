import type { AddressField, Address } from './records.js'
import { type CollectionModel, querystringSchema } from '../../http/rest/index.js'
import { CITY_MAX_LENGTH, NAME_MAX_LENGTH, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, POSTAL_CODE_MAX_LENGTH } from './schema.js'

/** What clients may ask of the address list: a filter and a sort key per field, pages of 50 by default. */
export const ADDRESS_QUERY: CollectionModel<AddressField> = {
  fields: {
    id: { kind: 'int64', description: 'Address ids are 64-bit integers.' },
    name: { kind: 'string', maxLength: NAME_MAX_LENGTH, description: 'Example: `name[contains]=ada`.' },
    city: { kind: 'string', maxLength: CITY_MAX_LENGTH, description: 'Example: `city=Berlin` (exact, case-sensitive).' },
    postalCode: { kind: 'string', maxLength: POSTAL_CODE_MAX_LENGTH, description: 'Example: `postalCode[gte]=10000&postalCode[lt]=20000`.' }
  },
  defaultLimit: PAGE_SIZE_DEFAULT,
  maxLimit: PAGE_SIZE_MAX
}

export const AddressListQuery = querystringSchema(ADDRESS_QUERY)

/** One record of an NDJSON export; the id keeps all its digits. */
export function addressLine (a: Address): string {
  return `{"id":${a.id},"name":${JSON.stringify(a.name)},"city":${JSON.stringify(a.city)},"postalCode":${JSON.stringify(a.postalCode)}}\n`
}
