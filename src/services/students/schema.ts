import { Type, type Static } from '@sinclair/typebox'
import { STORABLE_TEXT_PATTERN } from '../../http/text.js'

/** Limits the spec leaves open ("not shown"); see docs/decisions.md. */
export const NAME_MAX_LENGTH = 200
export const AGE_MAX = 2_147_483_647

const Name = Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH, pattern: STORABLE_TEXT_PATTERN })
const Age = Type.Integer({ minimum: 0, maximum: AGE_MAX })
const Id = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })

/** POST body. Any other member (a submitted id included) is dropped before the handler sees it. */
export const StudentCreateBody = Type.Object(
  { firstName: Name, lastName: Name, age: Age },
  { additionalProperties: false }
)
export type StudentCreateBody = Static<typeof StudentCreateBody>

/** PUT body: the id selects the record to replace. */
export const StudentReplaceBody = Type.Object(
  { id: Id, firstName: Name, lastName: Name, age: Age },
  { additionalProperties: false }
)
export type StudentReplaceBody = Static<typeof StudentReplaceBody>

export const Student = Type.Object(
  { id: Type.Integer(), firstName: Type.String(), lastName: Type.String(), age: Type.Integer() },
  { additionalProperties: false }
)

export const IdParams = Type.Object({ id: Type.String() })
export type IdParams = Static<typeof IdParams>

/** The spec's envelope, one schema per kind of body, so responses serialise fast and leak nothing. */
export const StudentEnvelope = Type.Object({ isSuccessful: Type.Boolean(), body: Student })
export const StudentListEnvelope = Type.Object({ isSuccessful: Type.Boolean(), body: Type.Array(Student) })
export const MessageEnvelope = Type.Object({ isSuccessful: Type.Boolean(), body: Type.String() })
