import { Type, type Static } from '@sinclair/typebox'
import { STORABLE_TEXT_PATTERN } from '../../lib/storable-text.js'

/** Limits the spec leaves open ("not shown"); see docs/decisions.md. */
export const NAME_MAX_LENGTH = 200
export const CITY_MAX_LENGTH = 200
/** Postal codes are at most 10 characters worldwide; 32 leaves room for formatting. Empty is refused (it showed as a blank cell); a country without codes has no postal code to give. */
export const POSTAL_CODE_MAX_LENGTH = 32
export const PAGE_SIZE_DEFAULT = 50
export const PAGE_SIZE_MAX = 500

// Text every store keeps exactly: no U+0000, no unpaired surrogate (src/lib/storable-text.ts).
const pattern = STORABLE_TEXT_PATTERN
// Names and cities of only spaces, and an empty postal code, show as blank rows: refused (issue 22).
const NOT_BLANK = [{ pattern: '\\S' }]
const Name = Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH, pattern, allOf: NOT_BLANK })
const City = Type.String({ minLength: 1, maxLength: CITY_MAX_LENGTH, pattern, allOf: NOT_BLANK })
const PostalCode = Type.String({ minLength: 1, maxLength: POSTAL_CODE_MAX_LENGTH, pattern, allOf: NOT_BLANK })

/** Example records for the API description (Swagger UI's "Try it out" starts from them). */
const OSLO = { name: 'Ada Lovelace', city: 'Oslo', postalCode: '0150' }
const BERGEN = { name: 'Alan Turing', city: 'Bergen', postalCode: '5003' }

/** POST body. Any other member (a submitted id included: the service generates ids) is dropped. */
export const AddressCreateBody = Type.Object(
  { name: Name, city: City, postalCode: PostalCode },
  { title: 'AddressInput', additionalProperties: false, description: 'A new address. Other members (an id included: the service makes ids) are dropped.', examples: [OSLO] }
)
export type AddressCreateBody = Static<typeof AddressCreateBody>

const ID_TEXT = 'A 64-bit id, 1 … 9223372036854775807, written as a JSON integer with every digit. Read it with a JSON parser that keeps integers beyond 2^53 exact (BigInt, int64); IEEE doubles round them.'

/** A 64-bit id in a JSON body. It may arrive as a bigint (src/http/json-body.ts); src/http/validation.ts validates that too. */
const AddressId = Type.Integer({ format: 'int64', minimum: 1, description: ID_TEXT })

/**
 * PUT body. `name` is needed only when the PUT creates the record (an update
 * keeps the stored name), so the route checks it. `id` is optional and must
 * equal the path id (compared exactly by the route).
 */
export const AddressPutBody = Type.Object(
  {
    id: Type.Optional(Type.Integer({ format: 'int64', description: 'Optional: the id of the path again (a different one is 400 ID_MISMATCH).' })),
    name: Type.Optional({ ...Name, description: 'Needed when the PUT creates the record; an update keeps the stored name.' }),
    city: City,
    postalCode: PostalCode
  },
  // No id in the example: it would have to equal whatever id the path is given.
  { title: 'AddressPut', additionalProperties: false, description: 'The address to store at the path id: updates city and postalCode (keeping the name) or creates the record.', examples: [OSLO] }
)
export type AddressPutBody = Static<typeof AddressPutBody>

/** The representation. `id` is a bigint; fast-json-stringify writes all its digits. */
export const Address = Type.Object(
  { id: AddressId, name: Type.String(), city: Type.String(), postalCode: Type.String() },
  { title: 'Address', additionalProperties: false, examples: [{ id: 1, ...OSLO }] }
)

/** A page of the collection; `next` (a relative link) is present only when another page follows. */
export const AddressPage = Type.Object(
  {
    items: Type.Array(Address),
    next: Type.Optional(Type.String({ format: 'uri-reference', description: 'The next page (also the `Link: <…>; rel="next"` header); absent on the last page. Follow it as it is.' }))
  },
  { title: 'AddressPage', additionalProperties: false, examples: [{ items: [{ id: 1, ...OSLO }, { id: 2, ...BERGEN }], next: '/addresses?limit=2&cursor=Mg' }] }
)


export interface IdParams { id: string }
