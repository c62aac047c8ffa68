/**
 * CSV as the server writes it (RFC 4180, UTF-8, a header row): the page
 * reads a file a person picked to import. A quoted cell may hold commas,
 * quotes (doubled) and line breaks. An unquoted empty cell is an absent
 * field; a quoted empty one, empty text.
 */
export interface CsvCell {
  text: string
  quoted: boolean
}

/** The records of a CSV text, each a list of cells; throws with the record's number when a quote is never closed. */
export function parseCsv (text: string): CsvCell[][] {
  const records: CsvCell[][] = []
  let record: CsvCell[] = []
  let i = text.charCodeAt(0) === 0xFEFF ? 1 : 0
  const endRecord = (): void => {
    if (!(record.length === 1 && record[0]?.text === '' && record[0].quoted === false)) records.push(record)
    record = []
  }
  while (i <= text.length) {
    if (i === text.length) { if (record.length > 0) endRecord(); break }
    let cell = ''
    let quoted = false
    if (text[i] === '"') {
      quoted = true
      i++
      for (;;) {
        if (i >= text.length) throw new Error(`record ${records.length + 1}: a quote is never closed`)
        if (text[i] === '"') {
          if (text[i + 1] === '"') { cell += '"'; i += 2; continue }
          i++
          break
        }
        cell += text[i++]
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') cell += text[i++]
    }
    record.push({ text: cell, quoted })
    if (text[i] === ',') { i++; continue }
    if (text[i] === '\r') i++
    if (text[i] === '\n') i++
    endRecord()
  }
  return records
}
