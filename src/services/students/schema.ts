import { Type, type Static } from '@sinclair/typebox'
import { STORABLE_TEXT_PATTERN } from '../../lib/storable-text.js'
import { ACCEPTS_KEY, STUDENT_PATH_ID } from '../../http/openapi/index.js'

/** Limits the spec leaves open ("not shown"); see docs/decisions.md. */
export const NAME_MAX_LENGTH = 200
export const AGE_MAX = 2_147_483_647

// A name of only spaces shows as a blank row: at least one other character (a second pattern, so the storable-text rule keeps its own code).
const Name = Type.String({ minLength: 1, maxLength: NAME_MAX_LENGTH, pattern: STORABLE_TEXT_PATTERN, allOf: [{ pattern: '\\S' }] })
const Age = Type.Integer({ minimum: 0, maximum: AGE_MAX })
const Id = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })

/** Example records for the API description (Swagger UI's "Try it out" starts from them): id 0 is the first a fresh server gives. */
export const ADA = { id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 36 }
export const ALAN = { id: 1, firstName: 'Alan', lastName: 'Turing', age: 41 }
const ADA_INPUT = { firstName: ADA.firstName, lastName: ADA.lastName, age: ADA.age }

/** POST body. Any other member (a submitted id included) is dropped before the handler sees it. */
export const StudentCreateBody = Type.Object(
  { firstName: Name, lastName: Name, age: Age },
  { title: 'StudentInput', additionalProperties: false, description: 'A new student. Other members (an id included) are dropped.', examples: [ADA_INPUT] }
)
export type StudentCreateBody = Static<typeof StudentCreateBody>

/** PUT body: the id selects the record to replace. */
export const StudentReplaceBody = Type.Object(
  { id: Id, firstName: Name, lastName: Name, age: Age },
  { title: 'StudentReplacement', additionalProperties: false, description: 'A whole student record; `id` selects the record to replace.', examples: [ADA] }
)
export type StudentReplaceBody = Static<typeof StudentReplaceBody>

export const Student = Type.Object(
  { id: Type.Integer({ minimum: 0 }), firstName: Type.String(), lastName: Type.String(), age: Type.Integer({ minimum: 0 }) },
  { title: 'Student', additionalProperties: false, examples: [ADA] }
)

// Any string: the route parses the id (INVALID_ID); the API description shows exactly what it takes.
export const IdParams = Type.Object({ id: Type.String({ description: STUDENT_PATH_ID.description, examples: [String(ADA.id)], [ACCEPTS_KEY]: STUDENT_PATH_ID }) })
export type IdParams = Static<typeof IdParams>

/** The spec's envelope, one schema per kind of body, so responses serialise fast and leak nothing. */
export const StudentEnvelope = Type.Object({ isSuccessful: Type.Boolean(), body: Student }, { title: 'StudentEnvelope', examples: [{ isSuccessful: true, body: ADA }] })
export const StudentListEnvelope = Type.Object({ isSuccessful: Type.Boolean(), body: Type.Array(Student) }, { title: 'StudentListEnvelope', examples: [{ isSuccessful: true, body: [ADA, ALAN] }] })
export const MessageEnvelope = Type.Object({ isSuccessful: Type.Boolean(), body: Type.String() }, { title: 'MessageEnvelope', examples: [{ isSuccessful: true, body: 'Student with id 0 was deleted' }] })
/** How v1 words every error (described in the API document; serialised with MessageEnvelope). */
export const ErrorEnvelope = Type.Object({ isSuccessful: Type.Literal(false), body: Type.String({ description: 'What went wrong, in English.' }) }, { title: 'ErrorEnvelope', examples: [{ isSuccessful: false, body: 'Student with id 7 was not found' }] })
