import type { Ajv } from 'ajv'
import type { AutoStamp } from './model.js'

/**
 * Automatic timestamps (`x-auto`, issue 29 item 2) as a JSON Schema keyword
 * of the bodies, so every writer that checks its input with them (REST,
 * GraphQL's mutations, `rqs import`) stamps the same way. The body's
 * `x-rqs-stamps` (ajv runs a keyword of the object before its properties)
 * puts NOW in each stamped field the body lacks; each field's `x-rqs-stamp`
 * turns NOW into the time of the write, in the canonical UTC form of a
 * date-time. A value the client sent is refused (`refuse`, bodies:
 * FIELD_READ_ONLY) or kept as a date-time (`keep`, import lines: an export
 * read back keeps its times).
 */
export const STAMP_KEYWORD = 'x-rqs-stamp'
export const STAMPS_KEYWORD = 'x-rqs-stamps'
/** What a missing stamped field holds until its keyword replaces it; never a valid date-time, so never kept as one. */
export const NOW = '\u0000now'

/** One write's time, shared by every stamped field of the body (created equals updated on a create). */
let stamped: string | undefined
function now (): string {
  if (stamped === undefined) {
    stamped = new Date().toISOString()
    queueMicrotask(() => { stamped = undefined })
  }
  return stamped
}

/** The body property of a stamped field: filled in and refused when sent. */
export function stampedProperty (stamp: AutoStamp, description: unknown): Record<string, unknown> {
  return {
    description: `${typeof description === 'string' ? `${description} ` : ''}Set by the server (${stamp === 'created' ? 'when the record is created' : 'on every write'}); a body that sends it is refused (FIELD_READ_ONLY).`,
    readOnly: true,
    [STAMP_KEYWORD]: 'refuse'
  }
}

/** The body's keyword that marks its stamped fields for stamping (none: no keyword). */
export function stampsOf (fields: readonly string[]): Record<string, unknown> {
  return fields.length === 0 ? {} : { [STAMPS_KEYWORD]: fields }
}

/** An import line's property of a stamped field: kept when the line has it, else the time of the import. */
export function keptStampProperty (field: Record<string, unknown>): Record<string, unknown> {
  return { anyOf: [{ const: NOW }, field], [STAMP_KEYWORD]: 'keep' }
}

type Context = { parentData: Record<string | number, unknown>, parentDataProperty: string | number }

/** The keyword's check: NOW becomes the write's time; a value sent is refused, or kept on import lines. */
function stampValue (mode: 'refuse' | 'keep', data: unknown, _schema?: unknown, context?: Context): boolean {
  if (data === NOW) {
    if (context !== undefined) context.parentData[context.parentDataProperty] = now()
    return true
  }
  if (mode === 'keep') return true
  stampValue.errors = [{ keyword: STAMP_KEYWORD, message: 'is set by the server: leave it out', params: {} }]
  return false
}
stampValue.errors = [] as Array<{ keyword: string, message: string, params: Record<string, never> }>

/** The body's keyword: NOW in each stamped field it lacks (a body that is no object is the type keyword's to refuse). */
function markStamps (fields: readonly string[], data: unknown): boolean {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return true
  const body = data as Record<string, unknown>
  for (const field of fields) if (body[field] === undefined) body[field] = NOW
  return true
}

export function addStampKeyword (ajv: Ajv): void {
  ajv.addKeyword({ keyword: STAMP_KEYWORD, schemaType: 'string', modifying: true, metaSchema: { enum: ['refuse', 'keep'] }, validate: stampValue })
  ajv.addKeyword({ keyword: STAMPS_KEYWORD, schemaType: 'array', modifying: true, errors: false, metaSchema: { type: 'array', items: { type: 'string' } }, validate: markStamps })
}
