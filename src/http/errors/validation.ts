import type { FastifySchemaValidationError } from 'fastify'
import type { Failure } from './app-error.js'
import type { ErrorCode } from './catalogue.js'
import { isStorableTextFailure, STORABLE_TEXT_RULE } from '../../lib/storable-text.js'

const CODE_BY_KEYWORD: Record<string, ErrorCode> = {
  required: 'FIELD_REQUIRED',
  type: 'FIELD_TYPE',
  minLength: 'FIELD_TOO_SHORT',
  maxLength: 'FIELD_TOO_LONG',
  minimum: 'FIELD_OUT_OF_RANGE',
  maximum: 'FIELD_OUT_OF_RANGE',
  exclusiveMinimum: 'FIELD_OUT_OF_RANGE',
  exclusiveMaximum: 'FIELD_OUT_OF_RANGE',
  // A declared collection's automatic timestamp (src/services/collections/stamps.ts).
  'x-rqs-stamp': 'FIELD_READ_ONLY'
}

/** The schemas' rule that text holds something besides white space (a name of spaces shows as a blank row). */
export const NOT_BLANK_PATTERN = '\\S'
const NOT_BLANK_RULE = 'must contain a character other than white space'

/**
 * One entry per ajv failure, so a client can fix every field in one go. The
 * detail names where the field is (`body.city`, `querystring.limit`); the
 * message names the field alone. A body that is not a JSON object at all is
 * JSON_EXPECTED, since field-level complaints would not help then.
 */
export function validationFailures (issues: readonly FastifySchemaValidationError[], context: string | undefined): Failure[] {
  const where = context ?? 'request'
  const failures: Failure[] = []
  const seen = new Set<string>()
  const blanks = new Set<string>()
  for (const issue of issues) {
    const pointer = issue.instancePath
    if (pointer === '' && issue.keyword !== 'required') {
      if (where === 'body') return [{ code: 'JSON_EXPECTED', detail: `The request body must be a JSON object (${issue.message ?? 'invalid'})` }]
      failures.push({ code: 'FIELD_INVALID', field: where, detail: `${where} ${issue.message ?? 'is invalid'}` })
      continue
    }
    const missing = issue.keyword === 'required' ? String(issue.params.missingProperty) : undefined
    const segments = pointer.split('/').slice(1).map(unescapePointer)
    if (missing !== undefined) segments.push(missing)
    const field = segments.join('.')
    const location = `${where}.${field}`
    // ajv may report one field twice (anyOf branches); one entry per field and code is enough.
    const unstorable = isStorableTextFailure(issue.keyword, issue.params)
    const blank = issue.keyword === 'pattern' && issue.params.pattern === NOT_BLANK_PATTERN
    const code = unstorable ? 'FIELD_INVALID_TEXT' : CODE_BY_KEYWORD[issue.keyword] ?? 'FIELD_INVALID'
    const key = `${code} ${location}`
    if (seen.has(key)) continue
    seen.add(key)
    const detail = missing !== undefined ? `${location} is required` : `${location} ${unstorable ? STORABLE_TEXT_RULE : blank ? NOT_BLANK_RULE : issue.message ?? 'is invalid'}`
    failures.push({ code, field, detail })
    if (blank) blanks.add(field)
  }
  // Empty text breaks minLength and the blank rule alike: "too short" says it.
  return failures.filter((f) => !(f.code === 'FIELD_INVALID' && f.field !== undefined && blanks.has(f.field) && failures.some((g) => g !== f && g.field === f.field)))
}


function unescapePointer (segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~')
}
