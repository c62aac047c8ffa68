import { Type } from '@sinclair/typebox'
import { ERRORS_PATH, type ErrorCatalogue, type ErrorCode, PROBLEM_CONTENT_TYPE } from '../errors/index.js'
import type { ErrorShapeDoc } from './notes.js'

/** Where examples pretend to run; the real links use the request's Host. */
const EXAMPLE_ORIGIN = 'http://localhost:8080'

export const ERROR_CODE_DESCRIPTION = 'Stable code from the error catalogue (GET /errors).'

export const ErrorEntrySchema = Type.Object({
  // One of the server's codes: the API description lists those of its catalogue (./document.ts).
  error: Type.String({ description: ERROR_CODE_DESCRIPTION }),
  message: Type.String({ description: 'For users, translated by Accept-Language.' }),
  detail: Type.String({ description: 'For developers, never translated.' }),
  help: Type.String({ format: 'uri-reference', description: 'The code\'s entry in the served error catalogue.' })
}, { title: 'ErrorEntry', additionalProperties: false })

/** RFC 9457 problem details with the `errors` and `traceId` extensions (src/http/errors/problem.ts). */
export const ProblemSchema = Type.Object({
  type: Type.String({ format: 'uri-reference', description: 'The catalogue entry of the code: `{origin}/errors/{CODE}`.' }),
  title: Type.String({ description: 'Short summary of the problem type, translated.' }),
  status: Type.Integer({ minimum: 400, maximum: 599 }),
  detail: Type.String({ description: 'What went wrong, for developers; never translated.' }),
  instance: Type.String({ description: 'The request path.' }),
  traceId: Type.String({ description: 'Equals the X-Request-Id response header.' }),
  errors: Type.Array(ErrorEntrySchema, { minItems: 1, description: 'One entry per failure (one per field for validation).' })
}, { title: 'Problem', additionalProperties: false })

/** A problem as the server would send it for a code (English, one entry). */
export function problemExample (code: ErrorCode, instance: string, catalogue: ErrorCatalogue): unknown {
  const base = `${EXAMPLE_ORIGIN}${ERRORS_PATH}/`
  // Entry codes appear under their problem's code: FIELD_* under VALIDATION_FAILED, RECORD_EXISTS under PRECONDITION_FAILED.
  const top: ErrorCode = code === 'RECORD_EXISTS' ? 'PRECONDITION_FAILED' : code
  const entryCode: ErrorCode = code === 'VALIDATION_FAILED' ? 'FIELD_REQUIRED' : code
  const detail = code === 'VALIDATION_FAILED'
    ? 'body.name is required'
    : code === 'RECORD_EXISTS' ? `a record with this id already exists (${instance.startsWith('/addresses') ? 'address' : 'record'} 7); If-None-Match: * allows only a create` : catalogue.entry(code).description.split('. ')[0] ?? ''
  return {
    type: base + top,
    title: catalogue.texts('en', top).title,
    status: catalogue.status(top),
    detail,
    instance,
    traceId: '6f1c2a9e-0d3b-4c41-9a57-3f8e2b1d7c40',
    errors: [{ error: entryCode, message: catalogue.texts('en', entryCode).message.replace('{field}', 'name'), detail, help: base + entryCode }]
  }
}

/** Problem details as the description shows them: `application/problem+json`, translated, with Content-Language. */
export const problemShape: ErrorShapeDoc = {
  schema: ProblemSchema,
  mediaTypes: [PROBLEM_CONTENT_TYPE],
  status: (code, catalogue) => catalogue.status(code),
  example: (code, path, catalogue) => problemExample(code, path, catalogue),
  headers: ['Content-Language'],
  translated: true
}
