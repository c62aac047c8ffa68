/**
 * Text every store keeps exactly (issue 10, defect 4). JSON can carry two
 * kinds of strings that the stores cannot hold as sent: U+0000, which
 * PostgreSQL's `text` refuses, and unpaired UTF-16 surrogates ("\ud800"),
 * which have no UTF-8 form, so SQLite and PostgreSQL store U+FFFD instead and
 * the record read back differs from the one acknowledged (and so does its
 * ETag). Both are refused at the schema, the same way for every store and
 * version, before anything is stored.
 */

/**
 * JSON Schema `pattern` for such text. It means the same with and without
 * the regex `u` flag (ajv compiles with it; a client's validator may not):
 * with `u` a surrogate pair is one code point outside the excluded range,
 * without it the second alternative matches the pair.
 */
export const STORABLE_TEXT_PATTERN = '^(?:[^\\u0000\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$'

/** What a client is told, after the field's name. */
export const STORABLE_TEXT_RULE = 'must not contain U+0000 or an unpaired surrogate (U+D800-U+DFFF)'

const STORABLE = new RegExp(STORABLE_TEXT_PATTERN, 'u')

/** Whether every store keeps this string exactly. */
export function isStorableText (value: string): boolean {
  return STORABLE.test(value)
}

/** Whether an ajv failure is this rule's (and not another `pattern` keyword). */
export function isStorableTextFailure (keyword: string, params: Record<string, unknown>): boolean {
  return keyword === 'pattern' && params.pattern === STORABLE_TEXT_PATTERN
}
