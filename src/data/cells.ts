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
 * - date-time: RFC 3339 with any offset, kept as the UTC instant.
 * Each spelling is the kind's own CSV form (src/domain/kinds/<kind>.ts).
 */
import { BOOLEAN_FORMS, KINDS, type Kind } from '../domain/kinds/index.js'

/**
 * How a field's cells are typed: by its kind's CSV form (src/domain/kinds), so
 * a new kind brings its own cell typing. `text` is the name the app's import
 * and older callers give the string kind.
 */
export type CellKind = Kind | 'text'

/** A cell's value as its field's kind has it, or the reason it is none ("age must be an integer, not "x""). */
export type CellValue = { value: unknown } | { reason: string }

export { BOOLEAN_FORMS }

/** The cell of field `name` typed by `kind`. */
export function typeCell (name: string, kind: CellKind, text: string): CellValue {
  const cell = KINDS[kind === 'text' ? 'string' : kind].csv(text)
  return 'rule' in cell ? { reason: `${name} ${cell.rule}` } : cell
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
    if (cell.text === '' && !(cell.quoted && (kind === 'text' || kind === 'string'))) continue
    const typed = typeCell(name, kind, cell.text)
    if ('reason' in typed) return typed
    setPath(value, name, typed.value)
  }
  return { value }
}

/** Sets a field, or the nested field a dotted column names (`address.city`: issue 29), making the objects on the way. */
function setPath (record: Record<string, unknown>, name: string, value: unknown): void {
  const steps = name.split('.')
  let at = record
  for (const step of steps.slice(0, -1)) {
    const next = at[step]
    if (typeof next !== 'object' || next === null || Array.isArray(next)) at[step] = {}
    at = at[step] as Record<string, unknown>
  }
  at[steps[steps.length - 1] as string] = value
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
