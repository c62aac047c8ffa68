import { Type } from '@sinclair/typebox'
import { MAX_INT64_ID } from '../../domain/index.js'
import { addressStore, type Address } from './records.js'
import { bodyChecks, lineChecker, type ServedCollection } from '../../data/collection.js'
import { ADDRESS_QUERY, addressLine } from './query.js'
import { Address as AddressSchema, AddressCreateBody, AddressPutBody } from './schema.js'
import { recordEtag } from '../../http/rest/index.js'
import { collectionStore } from '../records/routes.js'

const LINE = Type.Object({ id: Type.Unknown(), ...AddressCreateBody.properties }, { additionalProperties: false, required: ['id', 'name', 'city', 'postalCode'] })
const checkLine = lineChecker(LINE)

/** Addresses in files: a line is a POST body plus its id. */
export const ADDRESSES: ServedCollection<Address> = {
  name: 'addresses',
  schema: AddressSchema,
  store: (stores) => addressStore(collectionStore(stores, 'addresses')),
  fields: Object.keys(LINE.properties),
  line: addressLine,
  id: (a) => a.id,
  check: (value) => {
    const result = checkLine(value)
    if ('reason' in result) return result
    const a = value as Omit<Address, 'id'> & { id: unknown }
    const id = typeof a.id === 'bigint' ? a.id : typeof a.id === 'number' && Number.isSafeInteger(a.id) ? BigInt(a.id) : undefined
    if (id === undefined || id < 1n || id > MAX_INT64_ID) return { reason: `id must be an integer from 1 to ${MAX_INT64_ID}` }
    return { record: { id, name: a.name, city: a.city, postalCode: a.postalCode } }
  },
  model: ADDRESS_QUERY,
  checkBody: bodyChecks({ create: AddressCreateBody, replace: AddressPutBody }),
  etag: recordEtag,
  notFound: 'ADDRESS_NOT_FOUND'
}
