import type { OpenApiDocument, Pace } from './document.js'
import { KeptText } from './paced-json.js'

/**
 * The document as YAML (Swagger UI's /yaml), written path by path with
 * `pace` between them as its JSON is. The YAML library's one call over the
 * whole document held the event loop for seconds at the declaration
 * limits; this writer knows only what a JSON document holds (objects,
 * arrays, strings, numbers, booleans, null) and writes it in block style:
 * a plain scalar where one cannot be read as anything else, else the JSON
 * string, which is a YAML double-quoted scalar with the same escapes.
 */
export async function pacedYaml (document: OpenApiDocument, pace: Pace): Promise<KeptText> {
  const parts: Buffer[] = []
  for (const [key, value] of Object.entries(document)) {
    if (value === undefined) continue
    if (key !== 'paths' || typeof value !== 'object' || value === null || Object.keys(value).length === 0) {
      parts.push(Buffer.from(entry(key, value, '')))
      continue
    }
    parts.push(Buffer.from('paths:\n'))
    for (const [path, item] of Object.entries(value as Record<string, unknown>)) {
      await pace()
      if (item === undefined) continue
      parts.push(Buffer.from(entry(path, item, '  ')))
    }
  }
  return new KeptText(parts)
}

/** Plain scalars that read back as the same string in YAML 1.1 and 1.2 (no number, boolean, null or indicator). */
const PLAIN = /^[A-Za-z_/][A-Za-z0-9_./{}-]*$/
const READ_AS_OTHER = /^(?:y|n|yes|no|on|off|true|false|null)$/i

function scalar (value: unknown): string {
  if (typeof value === 'string') return PLAIN.test(value) && !READ_AS_OTHER.test(value) ? value : JSON.stringify(value)
  // What JSON.stringify writes for numbers, booleans and null is what YAML reads back.
  return JSON.stringify(value) ?? 'null'
}

function isBlock (value: unknown): value is object {
  return typeof value === 'object' && value !== null && (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0)
}

/** `key: value` at `indent`, as lines ending in a newline. */
function entry (key: string, value: unknown, indent: string): string {
  return isBlock(value) ? `${indent}${scalar(key)}:\n${block(value, `${indent}  `)}` : `${indent}${scalar(key)}: ${inline(value)}\n`
}

/** A value on its key's or dash's line: a scalar, or an empty map or list. */
function inline (value: unknown): string {
  if (Array.isArray(value)) return '[]'
  if (typeof value === 'object' && value !== null) return '{}'
  return scalar(value)
}

/** A non-empty map or list, each line at `indent`. */
function block (value: object, indent: string): string {
  // An entry without a value is left out, as JSON.stringify leaves it out.
  if (!Array.isArray(value)) return Object.entries(value).filter(([, item]) => item !== undefined).map(([key, item]) => entry(key, item, indent)).join('')
  return value.map((item) => {
    if (!isBlock(item)) return `${indent}- ${inline(item)}\n`
    // The item's first line after the dash, the others under it.
    const lines = block(item, `${indent}  `)
    return `${indent}- ${lines.slice(indent.length + 2)}`
  }).join('')
}
