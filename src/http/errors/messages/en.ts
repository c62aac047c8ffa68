import { FIELD_TEMPLATES } from './fields.js'
import type { MessageTable } from './types.js'

export const en: MessageTable = {
  VALIDATION_FAILED: { title: 'Invalid request', message: 'Some of the data you sent is not valid.' },
  FIELD_REQUIRED: { title: 'Missing field', message: FIELD_TEMPLATES.en.FIELD_REQUIRED },
  FIELD_TYPE: { title: 'Wrong field type', message: FIELD_TEMPLATES.en.FIELD_TYPE },
  FIELD_TOO_SHORT: { title: 'Field too short', message: FIELD_TEMPLATES.en.FIELD_TOO_SHORT },
  FIELD_TOO_LONG: { title: 'Field too long', message: FIELD_TEMPLATES.en.FIELD_TOO_LONG },
  FIELD_OUT_OF_RANGE: { title: 'Value out of range', message: FIELD_TEMPLATES.en.FIELD_OUT_OF_RANGE },
  FIELD_INVALID: { title: 'Invalid field', message: FIELD_TEMPLATES.en.FIELD_INVALID },
  FIELD_READ_ONLY: { title: 'Read-only field', message: FIELD_TEMPLATES.en.FIELD_READ_ONLY },
  JSON_EXPECTED: { title: 'JSON object expected', message: 'A JSON object is expected.' },
  MALFORMED_JSON: { title: 'Malformed JSON', message: 'The data sent is not valid JSON.' },
  FORBIDDEN_PROPERTY: { title: 'Forbidden property', message: 'The data contains a property that is not allowed.' },
  BODY_TOO_LARGE: { title: 'Request body too large', message: 'The data sent is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { title: 'Unsupported media type', message: 'The data must be sent as JSON.' },
  UNSUPPORTED_CONTENT_ENCODING: { title: 'Unsupported content encoding', message: 'The data must be sent uncompressed.' },
  NOT_ACCEPTABLE: { title: 'Not acceptable', message: 'The response cannot be produced in a format you accept.' },
  METHOD_NOT_ALLOWED: { title: 'Method not allowed', message: 'This action is not possible here.' },
  ROUTE_NOT_FOUND: { title: 'Not found', message: 'There is nothing at this address.' },
  CLIENT_ERROR: { title: 'Request rejected', message: 'The request could not be understood.' },
  INVALID_ID: { title: 'Invalid id', message: 'The id is not valid.' },
  ID_MISMATCH: { title: 'Id mismatch', message: 'The id in the data does not match the id in the address.' },
  INVALID_QUERY: { title: 'Invalid query', message: 'The list cannot be filtered or sorted this way ({field}).' },
  INVALID_CURSOR: { title: 'Invalid cursor', message: 'The page position is not valid; start again from the first page.' },
  IDEMPOTENCY_KEY_INVALID: { title: 'Invalid idempotency key', message: 'The request key is not valid.' },
  IDEMPOTENCY_KEY_REUSED: { title: 'Idempotency key reused', message: 'This request key was already used for a different request.' },
  PRECONDITION_FAILED: { title: 'Precondition failed', message: 'The record was changed by someone else. Reload it and try again.' },
  RECORD_EXISTS: { title: 'Record exists', message: 'A record with this id already exists.' },
  RECORD_NOT_CREATED: { title: 'Record not created', message: 'The data could not be created.' },
  UNKNOWN_ERROR_CODE: { title: 'Unknown error code', message: 'There is no such error code.' },
  STORE_UNAVAILABLE: { title: 'Service unavailable', message: 'The service is temporarily unavailable. Please try again shortly.' },
  WRITE_OUTCOME_UNKNOWN: { title: 'Outcome unknown', message: 'We could not confirm whether your change was saved. Please check, or try again shortly.' },
  INTERNAL: { title: 'Internal server error', message: 'Something went wrong on our side.' },
  // Security and operations (issue 11)
  UNAUTHENTICATED: { title: 'Authentication required', message: 'Please sign in: a valid access token is needed.' },
  FORBIDDEN: { title: 'Not permitted', message: 'Your access token does not allow this action.' },
  RATE_LIMITED: { title: 'Too many requests', message: 'You sent too many requests. Please wait a moment and try again.' },
  OVERLOADED: { title: 'Server overloaded', message: 'The service is very busy right now. Please try again shortly.' },
  AUTH_UNAVAILABLE: { title: 'Sign-in temporarily unavailable', message: 'Your access could not be checked right now. Please try again shortly.' },
  HOST_NOT_ALLOWED: { title: 'Unknown host name', message: 'This server cannot be reached under the name you used. Please use its usual address.' },

  // Reliability (issue 10)
  FIELD_INVALID_TEXT: { title: 'Characters not allowed', message: FIELD_TEMPLATES.en.FIELD_INVALID_TEXT },
  NESTING_TOO_DEEP: { title: 'Data nested too deeply', message: 'The data is nested too deeply.' },
  REQUEST_TIMEOUT: { title: 'Request timeout', message: 'The data did not arrive in time. Please send it again.' },
  PROCESSING_TIMEOUT: { title: 'Request took too long', message: 'The request took too long. Check whether your change was saved before trying again.' }
}
