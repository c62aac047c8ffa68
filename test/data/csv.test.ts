import { Readable } from 'node:stream'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readCsv, type CsvRecord } from '../../src/data/csv.js'
import { BadLineError, readRecords } from '../../src/data/read-records.js'
import { csvCell, csvHeader, csvRow } from '../../src/records/csv.js'
import { STUDENTS } from '../../src/services/students/collection.js'
import { ADDRESSES } from '../../src/services/addresses/collection.js'
import type { ServedCollection } from '../../src/data/collection.js'

/** The CSV reader and writer of issue 22: RFC 4180 both ways, records read across any chunk boundary. */
async function records (chunks: Array<Buffer | string>, max = 1 << 20): Promise<CsvRecord[]> {
  const out: CsvRecord[] = []
  for await (const record of readCsv(Readable.from(chunks), max)) out.push(record)
  return out
}

const cells = (...texts: string[]): Array<{ text: string, quoted: boolean }> => texts.map((text) => ({ text, quoted: false }))

async function imported<R> (collection: ServedCollection<R>, text: string, skipInvalid = false): Promise<R[]> {
  const out: R[] = []
  for await (const batch of readRecords(Readable.from([Buffer.from(text)]), collection, { skipInvalid, format: 'csv' })) out.push(...batch)
  return out
}

describe('csv writer', () => {
  it('quotes only what must be quoted, writes "" for the empty text and nothing for an absent field', () => {
    expect(csvCell('plain')).toBe('plain')
    expect(csvCell('a,b')).toBe('"a,b"')
    expect(csvCell('say "hi"')).toBe('"say ""hi"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell('cr\r')).toBe('"cr\r"')
    expect(csvCell('')).toBe('""')
    expect(csvCell(undefined)).toBe('')
    expect(csvCell(-1.5)).toBe('-1.5')
    expect(csvCell(1e21)).toBe('1e+21')
    expect(csvCell(9223372036854775807n)).toBe('9223372036854775807')
    expect(csvCell(false)).toBe('false')
    expect(csvCell('=1+1')).toBe('=1+1') // never altered (see src/records/csv.ts)
    expect(csvHeader(['id', 'name'])).toBe('id,name\r\n')
    expect(csvRow({ id: 1, name: 'Ünïcødé, "x"' }, ['id', 'name', 'gone'])).toBe('1,"Ünïcødé, ""x""",\r\n')
  })
})

describe('readCsv', () => {
  it('reads RFC 4180: quoted commas, doubled quotes, line breaks inside quotes, CRLF, LF or CR endings, a BOM', async () => {
    const text = '\ufeffa,b,c\r\n1,"x,y","say ""hi"""\r\n2,"two\r\nlines",\n3,,""\r4,é,ü'
    expect(await records([text])).toEqual([
      { number: 1, cells: cells('a', 'b', 'c') },
      { number: 2, cells: [{ text: '1', quoted: false }, { text: 'x,y', quoted: true }, { text: 'say "hi"', quoted: true }] },
      { number: 3, cells: [{ text: '2', quoted: false }, { text: 'two\r\nlines', quoted: true }, { text: '', quoted: false }] },
      { number: 4, cells: [{ text: '3', quoted: false }, { text: '', quoted: false }, { text: '', quoted: true }] },
      { number: 5, cells: cells('4', 'é', 'ü') }
    ])
  })

  it('gives the same records however the bytes are cut (inside quotes, CRLF pairs and UTF-8 sequences too)', async () => {
    const bytes = Buffer.from('id,name\r\n1,"Ünï, ""cødé""\r\nzwei"\r\n2,plain\r\n"3",""\r\n')
    const whole = await records([bytes])
    await fc.assert(fc.asyncProperty(fc.array(fc.nat(), { maxLength: 8 }), async (at) => {
      const offsets = [...new Set(at.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b)
      const chunks: Buffer[] = []
      let from = 0
      for (const to of offsets) { chunks.push(bytes.subarray(from, to)); from = to }
      chunks.push(bytes.subarray(from))
      expect(await records(chunks)).toEqual(whole)
    }))
  })

  it('round-trips whatever the writer writes', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.array(fc.option(fc.string({ unit: 'grapheme' }), { nil: undefined }), { minLength: 2, maxLength: 2 }), { maxLength: 5 }), async (rows) => {
      const text = rows.map((row) => csvRow({ a: row[0], b: row[1] }, ['a', 'b'])).join('')
      const read = await records([text])
      expect(read.map((r) => 'cells' in r ? r.cells.map((c) => c.text === '' && !c.quoted ? undefined : c.text) : r)).toEqual(rows)
    }))
  })

  it('says what is wrong with a record that is no proper CSV, and goes on with the next', async () => {
    expect(await records(['a"b,c\n"x"y,z\n"open,end'])).toEqual([
      { number: 1, problem: 'field 1 has a quote but does not begin with one' },
      { number: 2, problem: 'field 1 has text after its closing quote' },
      { number: 3, problem: 'field 1 opens a quote that is never closed' }
    ])
  })

  it('holds a record only up to the limit, and reads on after it', async () => {
    expect(await records([`1,${'x'.repeat(50)}\n"${'y'.repeat(30)}\n${'z'.repeat(30)}"\n2,ok\n`], 40)).toEqual([
      { number: 1, tooLong: true },
      { number: 2, tooLong: true },
      { number: 3, cells: cells('2', 'ok') }
    ])
    expect(await records([`${','.repeat(100)}\na,b\n`], 40)).toEqual([{ number: 1, tooLong: true }, { number: 2, cells: cells('a', 'b') }])
  })
})

describe('CSV import records', () => {
  it('reads columns by header name in any order, typed by the fields; empty cells are absent fields', async () => {
    expect(await imported(STUDENTS, 'age,lastName,id,firstName\r\n30,"Lovelace, Ada",1,"A ""B"""\r\n\r\n7,x,2,y\r\n')).toEqual([
      { id: 1, firstName: 'A "B"', lastName: 'Lovelace, Ada', age: 30 },
      { id: 2, firstName: 'y', lastName: 'x', age: 7 }
    ])
    expect(await imported(ADDRESSES, 'id,name,city,postalCode\n9223372036854775807,N,Kiel,01234\n')).toEqual([
      { id: 9223372036854775807n, name: 'N', city: 'Kiel', postalCode: '01234' }
    ])
    expect(await imported(STUDENTS, '')).toEqual([])
    expect(await imported(STUDENTS, 'id,firstName,lastName,age\r\n')).toEqual([])
  })

  it('refuses a bad cell, a missing field, a ragged record with the record number (the header is 1)', async () => {
    const header = 'id,firstName,lastName,age\n'
    await expect(imported(STUDENTS, `${header}1,a,b,1.0\n`)).rejects.toThrow(new BadLineError(2, 'age must be an integer, not "1.0"'))
    await expect(imported(STUDENTS, `${header}1,"a\nb",c,2\n2,a,b,\n`)).rejects.toThrow('line 3: age is required')
    await expect(imported(STUDENTS, `${header}1,a,b\n`)).rejects.toThrow('line 2: the record has 3 fields, the header 4')
    await expect(imported(STUDENTS, `${header}1,a,b,-4\n`)).rejects.toThrow('line 2: age must be at least 0')
    await expect(imported(STUDENTS, `${header}1,"",b,4\n`)).rejects.toThrow('line 2: firstName must not be empty')
    await expect(imported(STUDENTS, `${header}1,a"b,b,4\n`)).rejects.toThrow('line 2: the record is no proper CSV: field 2 has a quote but does not begin with one')
  })

  it('refuses a header with a column the collection lacks or names twice, with --skip-invalid too', async () => {
    await expect(imported(STUDENTS, 'id,firstName,lastName,age,email\n1,a,b,1,x\n', true)).rejects.toThrow('line 1: unknown column "email": the columns of students are id, firstName, lastName, age')
    await expect(imported(STUDENTS, 'id,age,age\n')).rejects.toThrow('line 1: the column "age" is named twice')
  })

  it('skips bad records with --skip-invalid', async () => {
    expect(await imported(STUDENTS, 'id,firstName,lastName,age\n1,a,b,x\n2,a,b,2\n', true)).toEqual([{ id: 2, firstName: 'a', lastName: 'b', age: 2 }])
  })
})
