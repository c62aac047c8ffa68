import { CsvParser, type CsvCell } from '../../src/data/csv-parser.js'

export type { CsvCell }

/**
 * The records of a CSV file a person picked to import, each a list of cells,
 * read by the same parser as `rqs import` (src/data/csv-parser.ts): a quoted
 * cell may hold commas, doubled quotes and line breaks; an unquoted empty cell
 * is an absent field, a quoted one empty text. Blank lines are passed over; a
 * record that is no proper CSV throws with its number.
 */
export function parseCsv (text: string): CsvCell[][] {
  const parser = new CsvParser(Number.MAX_SAFE_INTEGER)
  const body = text.charCodeAt(0) === 0xFEFF ? text.slice(1) : text
  const records: CsvCell[][] = []
  for (const record of [...parser.push(body), ...parser.end()]) {
    if ('problem' in record) throw new Error(`record ${record.number}: ${record.problem}`)
    if ('tooLong' in record) throw new Error(`record ${record.number} is too long`)
    if (record.cells.length === 1 && record.cells[0]?.text === '' && record.cells[0].quoted === false) continue
    records.push(record.cells)
  }
  return records
}
