import type { Ajv } from 'ajv'
import type { AutoStamp } from './model.js'

/**
 * Automatic timestamps (`x-auto`, issue 29 item 2) as a JSON Schema keyword
 * of the bodies, so every writer that checks its input with them (REST,
 * GraphQL's mutations, `rqs import`) stamps the same way. The field's
 * property gets NOW as its `default` (ajv's useDefaults fills it in when the
 * field is absent) and `x-rqs-stamp`, which turns NOW into the time of the
 * write, in the canonical UTC form of a date-time. A value the client sent
 * is refused (`refuse`, bodies: FIELD_READ_ONLY) or kept as a date-time
 * (`keep`, import lines: an export read back keeps its times).
 */
export const STAMP_KEYWORD = 'x-rqs-stamp'
/** What the default holds until the keyword replaces it; never a valid date-time, so never kept as one. */
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
    ...(typeof description === 'string' ? { description } : {}),
    description: `${typeof description === 'string' ? `${description} ` : ''}Set by the server (${stamp === 'created' ? 'when the record is created' : 'on every write'}); a body that sends it is refused (FIELD_READ_ONLY).`,
    readOnly: true,
    default: NOW,
    [STAMP_KEYWORD]: 'refuse'
  }
}

/** An import line's property of a stamped field: kept when the line has it, else the time of the import. */
export function keptStampProperty (field: Record<string, unknown>): Record<string, unknown> {
  return { anyOf: [{ const: NOW }, field], default: NOW, [STAMP_KEYWORD]: 'keep' }
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

export function addStampKeyword (ajv: Ajv): void {
  ajv.addKeyword({ keyword: STAMP_KEYWORD, schemaType: 'string', modifying: true, metaSchema: { enum: ['refuse', 'keep'] }, validate: stampValue })
}
