/**
 * The RFC 4180 parser itself, with no Node.js module: `rqs import` reads
 * files with it (./csv.ts) and the web app reads a file a person picked to
 * import with the very same rules.
 */

/** One field as written: its text, and whether it was in quotes. */
export interface CsvCell {
  text: string
  quoted: boolean
}

/** One record, numbered from 1 (the header is record 1): its cells, or why it is no proper CSV, or that it passed the size limit. */
export type CsvRecord =
  | { number: number, cells: CsvCell[] }
  | { number: number, problem: string }
  | { number: number, tooLong: true }

const SPECIAL = /[,\r\n"]/g

/**
 * A streaming RFC 4180 parser: `push` text as it comes (any split, inside
 * quotes too), `end` at the end of the input; each gives the records it
 * completed. A record's text is held only up to `maxChars` (UTF-16 units);
 * past that it is read on (its quotes still followed) without being kept,
 * and given as too long.
 */
export class CsvParser {
  #number = 0
  #cells: CsvCell[] = []
  #field = ''
  #quoted = false // the current field began with a quote
  #inQuotes = false
  #quoteSeen = false // a quote inside quotes: the closing one, or the first of a doubled pair
  #afterCR = false
  #started = false // anything of the current record read
  #held = 0
  #tooLong = false
  #problem: string | undefined
  #out: CsvRecord[] = []

  constructor (readonly maxChars: number) {}

  push (text: string): CsvRecord[] {
    let i = 0
    const n = text.length
    while (i < n) {
      if (this.#afterCR) {
        this.#afterCR = false
        if (text.charCodeAt(i) === 0x0a) { i++; continue } // CRLF: the record ended at the CR
      }
      if (this.#inQuotes) {
        if (this.#quoteSeen) {
          this.#quoteSeen = false
          if (text.charCodeAt(i) === 0x22) { this.#append('"'); i++; continue }
          this.#inQuotes = false // that quote closed the field; this character is outside it
          continue
        }
        const quote = text.indexOf('"', i)
        if (quote === -1) { this.#append(text.slice(i)); break }
        this.#append(text.slice(i, quote))
        this.#quoteSeen = true
        i = quote + 1
        continue
      }
      SPECIAL.lastIndex = i
      const found = SPECIAL.exec(text)
      const end = found === null ? n : found.index
      if (end > i) {
        this.#started = true
        if (this.#quoted) this.#problem ??= `field ${this.#cells.length + 1} has text after its closing quote`
        this.#append(text.slice(i, end))
      }
      if (found === null) break
      i = end + 1
      switch (found[0]) {
        case ',': this.#started = true; this.#endField(); break
        case '"':
          this.#started = true
          if (this.#field === '' && !this.#quoted) {
            this.#quoted = true
            this.#inQuotes = true
          } else {
            this.#problem ??= this.#quoted ? `field ${this.#cells.length + 1} has text after its closing quote` : `field ${this.#cells.length + 1} has a quote but does not begin with one`
            this.#append('"')
          }
          break
        default: // CR or LF
          this.#endRecord()
          if (found[0] === '\r') this.#afterCR = true
      }
    }
    return this.#take()
  }

  end (): CsvRecord[] {
    if (this.#inQuotes && !this.#quoteSeen) this.#problem ??= `field ${this.#cells.length + 1} opens a quote that is never closed`
    this.#inQuotes = false
    this.#quoteSeen = false
    if (this.#started || this.#cells.length > 0) this.#endRecord()
    return this.#take()
  }

  #append (text: string): void {
    if (this.#tooLong) return
    this.#held += text.length
    if (this.#held > this.maxChars) {
      this.#tooLong = true
      this.#field = ''
      this.#cells = []
      return
    }
    this.#field += text
  }

  #endField (): void {
    // A field counts one more for its separator: a record of empty fields is held only up to the limit too.
    if (!this.#tooLong && ++this.#held > this.maxChars) {
      this.#tooLong = true
      this.#cells = []
    }
    if (!this.#tooLong) this.#cells.push({ text: this.#field, quoted: this.#quoted })
    this.#field = ''
    this.#quoted = false
  }

  #endRecord (): void {
    this.#endField()
    const number = ++this.#number
    if (this.#tooLong) this.#out.push({ number, tooLong: true })
    else if (this.#problem !== undefined) this.#out.push({ number, problem: this.#problem })
    else this.#out.push({ number, cells: this.#cells })
    this.#cells = []
    this.#held = 0
    this.#tooLong = false
    this.#problem = undefined
    this.#started = false
  }

  #take (): CsvRecord[] {
    const out = this.#out
    this.#out = []
    return out
  }
}
