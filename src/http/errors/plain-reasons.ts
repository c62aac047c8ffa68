import type { FastifySchemaValidationError } from 'fastify'
import { isStorableTextFailure, STORABLE_TEXT_RULE } from '../../lib/storable-text.js'
import { NOT_BLANK_PATTERN, validationFailures } from './validation.js'

/**
 * Why a record is not valid, in words a person reads, one phrase per field
 * ("age must be at least 0; firstName must not be empty"): what `rqs import`
 * says about a bad line. The catalogue's messages name the same failures
 * (FIELD_TOO_SHORT: "firstName is too short.") and the problem's `detail`
 * keeps the validator's own words; a file's author needs the limit too.
 */
export function plainReasons (issues: readonly FastifySchemaValidationError[]): string {
  const kept = new Set(validationFailures(issues, 'body').map((f) => f.detail))
  const phrases: string[] = []
  const seen = new Set<string>()
  for (const issue of issues) {
    const phrase = plainReason(issue)
    // One phrase per field and failure, as the problem details have (ajv may report a field twice).
    if (phrase === undefined || seen.has(phrase)) continue
    seen.add(phrase)
    phrases.push(phrase)
  }
  // Empty text breaks minLength and the blank rule alike: "must not be empty" says it.
  const empty = new Set(phrases.filter((p) => p.endsWith(' must not be empty')).map((p) => p.slice(0, -' must not be empty'.length)))
  const said = phrases.filter((p) => !(p.endsWith(' must not be blank') && empty.has(p.slice(0, -' must not be blank'.length))))
  return said.length > 0 ? said.join('; ') : [...kept].join('; ')
}

function plainReason (issue: FastifySchemaValidationError): string | undefined {
  const params = issue.params as Record<string, unknown>
  const segments = issue.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
  if (issue.keyword === 'required') return `${[...segments, String(params.missingProperty)].join('.')} is required`
  const field = segments.join('.')
  if (field === '') {
    if (issue.keyword === 'additionalProperties') return `${String(params.additionalProperty)} is not a field of this collection`
    if (issue.keyword === 'type') return 'a line must be a JSON object'
    return undefined
  }
  if (isStorableTextFailure(issue.keyword, params)) return `${field} ${STORABLE_TEXT_RULE}`
  const limit = params.limit as number | undefined
  switch (issue.keyword) {
    case 'type': return `${field} must be ${TYPE_WORDS[String(params.type)] ?? String(params.type)}`
    case 'minLength': return limit === 1 ? `${field} must not be empty` : `${field} must be at least ${limit ?? '?'} characters long`
    case 'maxLength': return `${field} must be at most ${limit ?? '?'} characters long`
    case 'minimum': return `${field} must be at least ${limit ?? '?'}`
    case 'maximum': return `${field} must be at most ${limit ?? '?'}`
    case 'exclusiveMinimum': return `${field} must be greater than ${limit ?? '?'}`
    case 'exclusiveMaximum': return `${field} must be less than ${limit ?? '?'}`
    case 'pattern': return params.pattern === NOT_BLANK_PATTERN ? `${field} must not be blank` : `${field} does not have the expected form (${String(params.pattern)})`
    case 'format': return `${field} must be ${FORMAT_WORDS[String(params.format)] ?? `a valid ${String(params.format)}`}`
    case 'enum': return `${field} must be one of ${(params.allowedValues as unknown[] | undefined)?.map((v) => JSON.stringify(v)).join(', ') ?? 'the allowed values'}`
    case 'additionalProperties': return `${field}.${String(params.additionalProperty)} is not a field of this collection`
    default: return `${field} ${issue.message ?? 'is not valid'}`
  }
}

const TYPE_WORDS: Record<string, string> = {
  integer: 'a whole number',
  number: 'a number',
  string: 'text',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a list'
}

const FORMAT_WORDS: Record<string, string> = {
  date: 'a date like 2024-05-31',
  'date-time': 'a date and time like 2024-05-31T12:00:00Z',
  email: 'an email address',
  uri: 'a URI',
  uuid: 'a UUID'
}
