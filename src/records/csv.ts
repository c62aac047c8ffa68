/**
 * Records as CSV (RFC 4180, UTF-8; issue 22): a header row of the field
 * names, then one row a record, every row ending in CRLF. A cell is quoted
 * when it holds `"`, `,`, CR or LF (its quotes doubled), and an empty string
 * is written `""`, so that an unquoted empty cell always means an absent
 * field (as PostgreSQL's COPY … CSV reads them) and a file round-trips
 * exactly. Numbers are written as JSON writes them, booleans `true`/`false`,
 * 64-bit ids with every digit.
 *
 * Cells are never altered: a text that starts with `=`, `+`, `-` or `@` is
 * written as it is, although a spreadsheet may take it for a formula
 * ("CSV injection"). Prefixing `'` would change the data (an import would
 * store the prefix; `-5` in a text field could not round-trip); a client
 * that opens exports in a spreadsheet must guard against formulas itself.
 */

import { valueAtPath } from '../domain/index.js'

/** RFC 4180's media type, with RFC 7111's note that the first row names the columns. */
export const CSV_TYPE = 'text/csv; charset=utf-8; header=present'

const NEEDS_QUOTES = /[",\r\n]/

/** One cell: `undefined`/`null` (an absent field) empty, text quoted when it must be. */
export function csvCell (value: unknown): string {
  switch (typeof value) {
    case 'string':
      if (value === '') return '""'
      return NEEDS_QUOTES.test(value) ? `"${value.replace(/"/g, '""')}"` : value
    case 'number': return Number.isFinite(value) ? JSON.stringify(value) : '' // JSON's form (-0 is 0); no store keeps a non-finite one
    case 'bigint': return value.toString()
    case 'boolean': return value ? 'true' : 'false'
    case 'undefined': return ''
    default: return value === null ? '' : csvCell(JSON.stringify(value))
  }
}

/** The header row: the column names, CRLF included. */
export function csvHeader (columns: readonly string[]): string {
  return `${columns.map(csvCell).join(',')}\r\n`
}

/** A record's row in `columns`' order (a dotted column reads inside an object field), CRLF included. */
export function csvRow (record: unknown, columns: readonly string[]): string {
  let row = ''
  for (let i = 0; i < columns.length; i++) {
    if (i > 0) row += ','
    row += csvCell(valueAtPath(record, columns[i] as string))
  }
  return `${row}\r\n`
}
