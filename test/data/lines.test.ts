import { Readable } from 'node:stream'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { describeSize, InputReadError, readLines, TOO_LONG } from '../../src/data/lines.js'
import { LineTooLongError, readRecords } from '../../src/data/read-records.js'
import { STUDENTS } from '../../src/services/students/collection.js'
import type { Student } from '../helpers/built-ins.js'

/**
 * The line reader of `rqs import` and `--seed` (issue 19, item 11): lines as
 * Node's readline gave them (for `\n` and `\r\n` endings), a leading BOM
 * dropped, and a line past the limit given as TOO_LONG without holding it.
 */
async function lines (chunks: Array<Buffer | string>, max = 1 << 20): Promise<Array<string | typeof TOO_LONG>> {
  const out: Array<string | typeof TOO_LONG> = []
  for await (const line of readLines(Readable.from(chunks), max)) out.push(line)
  return out
}

/** Cuts bytes into chunks at the given offsets (anywhere: inside a UTF-8 sequence too). */
function cut (bytes: Buffer, at: number[]): Buffer[] {
  const offsets = [...new Set(at.map((n) => n % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Buffer[] = []
  let from = 0
  for (const to of offsets) { out.push(bytes.subarray(from, to)); from = to }
  out.push(bytes.subarray(from))
  return out.filter((c) => c.length > 0)
}

describe('readLines', () => {
  it('gives each line as split at \\n (a \\r before it dropped), however the bytes are chunked (property)', async () => {
    const line = fc.string({ unit: fc.constantFrom('a', 'é', '😀', ' ', '{', '"', '\r', '\ufeff'), maxLength: 12 })
    await fc.assert(fc.asyncProperty(fc.array(line, { maxLength: 8 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), fc.array(fc.nat(), { maxLength: 6 }), async (texts, eol, finalEol, at) => {
      const body = texts.join(eol) + (finalEol && texts.length > 0 ? eol : '')
      const expected = body.split('\n').map((l) => l.endsWith('\r') ? l.slice(0, -1) : l)
      if (body === '' || body.endsWith('\n')) expected.pop() // after the last newline: no line
      if (expected.length > 0 && (expected[0] as string).startsWith('\ufeff')) expected[0] = (expected[0] as string).slice(1)
      expect(await lines(cut(Buffer.from(body), at))).toEqual(expected)
    }), { numRuns: 300 })
  })

  it('drops a byte order mark on the first line only', async () => {
    expect(await lines(['\ufeff{"a":1}\n\ufeff{"b":2}\n'])).toEqual(['{"a":1}', '\ufeff{"b":2}'])
    expect(await lines([Buffer.from([0xef]), Buffer.from([0xbb, 0xbf, 0x31])])).toEqual(['1'])
  })

  it('gives a line past the limit as TOO_LONG, once, and goes on with the next line', async () => {
    expect(await lines(['ab\n', 'x'.repeat(11), '\nc', 'd\n', 'y'.repeat(10), '\n', 'z'.repeat(4), 'z'.repeat(7)], 10))
      .toEqual(['ab', TOO_LONG, 'cd', 'y'.repeat(10), TOO_LONG])
    expect(await lines(['x'.repeat(5), 'x'.repeat(5), 'x'.repeat(50), 'x', '\nok'], 10)).toEqual([TOO_LONG, 'ok'])
  })

  it('says a failing input is the input\'s fault', async () => {
    const broken = new Readable({ read () { this.destroy(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' })) } })
    const read = async (): Promise<void> => { for await (const line of readLines(broken, 10)) void line }
    await expect(read()).rejects.toBeInstanceOf(InputReadError)
  })

  it('words sizes', () => {
    expect([describeSize(1048576), describeSize(1536), describeSize(100), describeSize(4 * 1024 ** 3)]).toEqual(['1 MiB', '1.5 KiB', '100 bytes', '4 GiB'])
  })
})

describe('readRecords on a line with no end', () => {
  it('stops at the limit with the line\'s number, having read little more than the limit', async () => {
    // 64 MiB without a newline (readline held it all, then called it invalid JSON).
    const chunk = Buffer.alloc(64 * 1024, 'x')
    let pulled = 0
    const endless = Readable.from((function * () {
      yield Buffer.from(`${JSON.stringify({ id: 1, firstName: 'A', lastName: 'B', age: 1 })}\n{"id":2,"firstName":"`)
      for (let i = 0; i < 1024; i++) { pulled += chunk.length; yield chunk }
      yield Buffer.from('"}\n')
    })())
    const records: Student[] = []
    const err = await (async () => { for await (const batch of readRecords(endless, STUDENTS, { skipInvalid: false })) records.push(...batch) })().then(() => undefined, (e: unknown) => e)
    expect(err).toBeInstanceOf(LineTooLongError)
    expect((err as LineTooLongError).message).toBe('line 2: the line is longer than the limit of 1 MiB')
    expect(pulled).toBeLessThanOrEqual(1024 * 1024 + 3 * chunk.length)
    expect(endless.destroyed).toBe(true)
  })
})
