import { Type, type Static } from '@sinclair/typebox'
import { STORABLE_TEXT_PATTERN } from '../../http/text.js'

/** Limits the spec leaves open ("not shown"); see docs/decisions.md. */
export const NAME_MAX_LENGTH = 200
export const CITY_MAX_LENGTH = 200
/** Postal codes are at most 10 characters worldwide; 32 leaves room for formatting. Empty is allowed: some countries have none. */
export const POSTAL_CODE_MAX_LENGTH = 32
export const PAGE_SIZE_DEFAULT = 50
export const PAGE_SIZE_MAX = 500

// Text every store keeps exactly: no U+0000, no unpaired surrogate (src/http/text.ts).
const pattern = STORABLE_TEXT_PATTERN
const Name = Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH, pattern })
const City = Type.String({ minLength: 1, maxLength: CITY_MAX_LENGTH, pattern })
const PostalCode = Type.String({ maxLength: POSTAL_CODE_MAX_LENGTH, pattern })

/** POST body. Any other member (a submitted id included: the service generates ids) is dropped. */
export const AddressCreateBody = Type.Object(
  { name: Name, city: City, postalCode: PostalCode },
  { additionalProperties: false }
)
export type AddressCreateBody = Static<typeof AddressCreateBody>

/**
 * PUT body. `name` is needed only when the PUT creates the record (an update
 * keeps the stored name), so the route checks it. `id` is optional and must
 * equal the path id; it may arrive as a bigint (see src/http/json-body.ts),
 * which ajv cannot type-check, so the route checks it too.
 */
export const AddressPutBody = Type.Object(
  { id: Type.Optional(Type.Unknown()), name: Type.Optional(Name), city: City, postalCode: PostalCode },
  { additionalProperties: false }
)
export type AddressPutBody = Static<typeof AddressPutBody>

/** The representation. `id` is a bigint; fast-json-stringify writes all its digits. */
export const Address = Type.Object(
  { id: Type.Integer(), name: Type.String(), city: Type.String(), postalCode: Type.String() },
  { additionalProperties: false }
)

/** A page of the collection; `next` (a relative link) is present only when another page follows. */
export const AddressPage = Type.Object(
  { items: Type.Array(Address), next: Type.Optional(Type.String()) },
  { additionalProperties: false }
)

export const ListQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT }),
    cursor: Type.Optional(Type.String({ maxLength: 64 })),
    city: Type.Optional(Type.String({ maxLength: CITY_MAX_LENGTH, pattern })),
    postalCode: Type.Optional(Type.String({ maxLength: POSTAL_CODE_MAX_LENGTH, pattern }))
  },
  { additionalProperties: false }
)
export type ListQuery = Static<typeof ListQuery>

export interface IdParams { id: string }
