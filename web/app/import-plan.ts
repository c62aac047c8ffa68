import { otherSeparator, typeRecord, type TypedColumn } from '../../src/data/cells.js'
import { CsvParser, type CsvCell } from '../../src/data/csv-parser.js'
import type { FieldSpec, ResourceSpec } from './resources.js'

/** One data row of the file, typed: its line (the header is line 1), the id it names (when the collection takes ids) and its body. */
export interface PlannedRow {
  line: number
  id?: string
  body: Record<string, unknown>
}

/** A line of the file that cannot be imported, and why (the column is named in the reason). */
export interface LineError {
  line: number
  reason: string
}

/** What importing a file would do, read before anything is written. */
export interface ImportPlan {
  /** Each header cell and the field it fills (`id` included). */
  mapping: Array<{ header: string, field: string }>
  rows: PlannedRow[]
  /** Lines that are no proper CSV or whose cells the fields refuse: while there are any, nothing is imported. */
  errors: LineError[]
}

/** Why a file cannot be imported at all (its header), in words the page gives the person. */
export type HeaderProblem =
  | { unknown: string[], expected: string[], separator?: string }
  | { idRefused: true }
  | { empty: true }

/**
 * Reads a file a person picked into an import plan, typing each cell as `rqs
 * import` does (src/data/cells.ts): a column is a field's key or its label
 * (`labelOf`); `id` is taken only when the collection lets a client choose
 * ids (`spec.clientIds`: PUT creates at an id), and refuses the file
 * otherwise, so the file's ids are never silently dropped.
 */
export function planImport (text: string, spec: ResourceSpec, labelOf: (field: FieldSpec) => string): { plan: ImportPlan } | { problem: HeaderProblem } {
  const parser = new CsvParser(Number.MAX_SAFE_INTEGER)
  const body = text.charCodeAt(0) === 0xFEFF ? text.slice(1) : text
  let columns: TypedColumn[] | undefined
  const mapping: ImportPlan['mapping'] = []
  const rows: PlannedRow[] = []
  const errors: LineError[] = []
  for (const record of [...parser.push(body), ...parser.end()]) {
    const line = record.number
    if ('tooLong' in record) { errors.push({ line, reason: 'the line is too long' }); continue }
    if ('problem' in record) {
      if (columns === undefined) return { problem: { unknown: [`line ${line}: ${record.problem}`], expected: [] } }
      errors.push({ line, reason: `the record is no proper CSV: ${record.problem}` })
      continue
    }
    if (isBlank(record.cells)) continue
    if (columns === undefined) {
      const header = headerColumns(record.cells, spec, labelOf)
      if ('problem' in header) return header
      columns = header.columns
      mapping.push(...record.cells.map((cell, i) => ({ header: cell.text, field: (columns as TypedColumn[])[i]?.name ?? '' })))
      continue
    }
    const typed = typeRecord(columns, record.cells)
    if ('reason' in typed) { errors.push({ line, reason: typed.reason }); continue }
    const { id, ...fields } = typed.value
    rows.push(id === undefined ? { line, body: fields } : { line, id: String(id), body: fields })
  }
  if (columns === undefined) return { problem: { empty: true } }
  return { plan: { mapping, rows, errors } }
}

function isBlank (cells: readonly CsvCell[]): boolean {
  return cells.length === 1 && cells[0]?.text === '' && cells[0].quoted === false
}

function headerColumns (cells: readonly CsvCell[], spec: ResourceSpec, labelOf: (field: FieldSpec) => string): { columns: TypedColumn[] } | { problem: HeaderProblem } {
  const unknown: string[] = []
  const columns: TypedColumn[] = []
  let separator: string | undefined
  for (const { text } of cells) {
    const name = text.trim()
    if (name === 'id') {
      if (spec.clientIds !== true) return { problem: { idRefused: true } }
      columns.push({ name: 'id', kind: 'int64' })
      continue
    }
    const field = spec.fields.find((f) => f.key === name) ?? spec.fields.find((f) => labelOf(f).toLowerCase() === name.toLowerCase())
    if (field === undefined || columns.some((c) => c.name === field.key)) {
      unknown.push(text)
      separator ??= otherSeparator(text, ['id', ...spec.fields.map((f) => f.key)])
      continue
    }
    columns.push({ name: field.key, kind: field.kind })
  }
  if (unknown.length > 0) return { problem: { unknown, expected: ['id', ...spec.fields.map((f) => f.key)].filter((k) => k !== 'id' || spec.clientIds === true), separator } }
  return { columns }
}

/** The error report a person downloads: `line,reason`, one row a refused line, RFC 4180. */
export function errorReport (errors: readonly LineError[]): string {
  const cell = (text: string): string => /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
  return `line,reason\r\n${[...errors].sort((a, b) => a.line - b.line).map((e) => `${e.line},${cell(e.reason)}\r\n`).join('')}`
}
