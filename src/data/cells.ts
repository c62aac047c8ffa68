/**
 * How a CSV cell's text becomes a field's value: the one typing of cells that
 * `rqs import` (./csv.ts) and the web app's import preview (web/app/csv.ts)
 * share, so that a file is read alike wherever it is imported. No Node.js
 * module: esbuild bundles it into the app.
 *
 * Accepted spellings (docs/decisions.md, "One typing of CSV cells"):
 * - boolean: `true` / `false` in any case (Excel writes `TRUE`), and `1` / `0`;
 *   nothing else (`yes`, `ja`, `y`, `on`, ` true`) — refused, never read as false.
 * - integer: decimal digits with an optional leading `-`, no leading zeros, no
 *   `+`, no decimal point (`1.0` is no integer), no spaces, within ±(2^53−1).
 * - int64: the same digits, as a bigint (address ids).
 * - number: JSON's number syntax (`-1.5`, `2e3`; no `,` decimal comma, no `.5`, no spaces).
 * - text: the cell as written.
 */

/** How a field's cells are typed. */
export type CellKind = 'text' | 'integer' | 'int64' | 'number' | 'boolean'

/** A cell's value as its field's kind has it, or the reason it is none ("age must be an integer, not "x""). */
export type CellValue = { value: unknown } | { reason: string }

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/
const TRUE = new Set(['true', '1'])
const FALSE = new Set(['false', '0'])

/** The accepted spellings of a boolean cell, for messages and docs. */
export const BOOLEAN_FORMS = 'true or false (in any case), 1 or 0'

/** The cell of field `name` typed by `kind`. */
export function typeCell (name: string, kind: CellKind, text: string): CellValue {
  switch (kind) {
    case 'text': return { value: text }
    case 'integer': {
      if (!INTEGER.test(text)) return { reason: `${name} must be an integer, not "${text}"` }
      const value = Number(text)
      return Number.isSafeInteger(value) ? { value } : { reason: `${name} must be an integer from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, not ${text}` }
    }
    case 'int64': return INTEGER.test(text) ? { value: BigInt(text) } : { reason: `${name} must be an integer, not "${text}"` }
    case 'number': {
      const value = Number(text)
      return NUMBER.test(text) && Number.isFinite(value) ? { value } : { reason: `${name} must be a number such as 9.5, -2 or 1e3 (a decimal point, not a comma), not "${text}"` }
    }
    case 'boolean': {
      const folded = text.toLowerCase()
      if (TRUE.has(folded)) return { value: true }
      if (FALSE.has(folded)) return { value: false }
      return { reason: `${name} must be ${BOOLEAN_FORMS}, not "${text}"` }
    }
  }
}

/** A column of a file: the field it holds and how its cells are typed. */
export interface TypedColumn {
  name: string
  kind: CellKind
}

/** One CSV field as written (./csv-parser.ts's CsvCell). */
interface Cell {
  text: string
  quoted: boolean
}

/**
 * A data record's cells as the object a JSON line would be: the header's
 * names, each value typed by its field. An unquoted empty cell is an absent
 * field; a quoted one is the empty text of a text field and absent otherwise.
 */
export function typeRecord (columns: readonly TypedColumn[], cells: readonly Cell[]): { value: Record<string, unknown> } | { reason: string } {
  if (cells.length !== columns.length) return { reason: `the record has ${cells.length} field${cells.length === 1 ? '' : 's'}, the header ${columns.length}` }
  const value: Record<string, unknown> = {}
  for (let i = 0; i < columns.length; i++) {
    const { name, kind } = columns[i] as TypedColumn
    const cell = cells[i] as Cell
    if (cell.text === '' && !(cell.quoted && kind === 'text')) continue
    const typed = typeCell(name, kind, cell.text)
    if ('reason' in typed) return typed
    value[name] = typed.value
  }
  return { value }
}

/**
 * The separator a header cell seems to have been written with, when the file
 * used another one than the comma: one cell holding `;`, tab or `|` between
 * known names ("title;year;isbn;available" is semicolon-separated).
 */
export function otherSeparator (header: string, known: readonly string[]): ';' | '\t' | '|' | undefined {
  for (const separator of [';', '\t', '|'] as const) {
    const parts = header.split(separator)
    if (parts.length > 1 && parts.some((part) => known.includes(part.trim()))) return separator
  }
  return undefined
}

const SEPARATOR_NAMES = { ';': 'semicolon', '\t': 'tab', '|': 'pipe' } as const

/** `otherSeparator` as words to add to the refusal of such a header; empty when it is not that. */
export function separatorHint (header: string, known: readonly string[]): string {
  const separator = otherSeparator(header, known)
  return separator === undefined ? '' : ` (the header looks ${SEPARATOR_NAMES[separator]}-separated: columns must be separated by commas)`
}
