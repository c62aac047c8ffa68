import { describe, expect, it } from 'vitest'
import { evaluatePreconditions, parseEntityTags, strongEtag } from '../../../src/http/rest/conditional.js'
import { decodeCursor, encodeCursor } from '../../../src/services/addresses/cursor.js'
import { parseAddressId } from '../../../src/services/addresses/id.js'

describe('parseEntityTags', () => {
  it('reads *, strong and weak tags, and skips malformed members', () => {
    expect(parseEntityTags(' * ')).toBe('*')
    expect(parseEntityTags('"a", W/"b",junk, "c"')).toEqual([
      { weak: false, tag: '"a"' }, { weak: true, tag: '"b"' }, { weak: false, tag: '"c"' }
    ])
    expect(parseEntityTags('"unterminated')).toEqual([])
    expect(parseEntityTags('')).toEqual([])
  })
})

describe('evaluatePreconditions (RFC 9110 §13.2.2)', () => {
  const tag = strongEtag('x')
  const cases: Array<[Record<string, string>, string | undefined, boolean, string]> = [
    [{}, tag, false, 'proceed'],
    [{ 'if-match': tag }, tag, false, 'proceed'],
    [{ 'if-match': '"other"' }, tag, false, 'failed'],
    [{ 'if-match': `W/${tag}` }, tag, false, 'failed'],
    [{ 'if-match': '*' }, undefined, false, 'failed'],
    [{ 'if-match': '*' }, tag, false, 'proceed'],
    [{ 'if-none-match': '*' }, undefined, false, 'proceed'],
    [{ 'if-none-match': '*' }, tag, false, 'failed'],
    [{ 'if-none-match': `W/${tag}` }, tag, true, 'not-modified'],
    [{ 'if-none-match': '"other"' }, tag, true, 'proceed'],
    // If-Match is evaluated first.
    [{ 'if-match': '"other"', 'if-none-match': '"other"' }, tag, true, 'failed']
  ]
  it.each(cases)('%j with current %s (read %s) → %s', (headers, current, read, expected) => {
    expect(evaluatePreconditions(headers, current, read)).toBe(expected)
  })
})

describe('address ids and cursors', () => {
  it('accepts exactly 1 … 2^63-1 in canonical decimal', () => {
    expect(parseAddressId('1')).toBe(1n)
    expect(parseAddressId('9223372036854775807')).toBe(9223372036854775807n)
    for (const bad of ['', '0', '00', '01', '-1', '+1', '9223372036854775808', '10000000000000000000', '1 ', '1.0', 'ab', '١']) {
      expect(parseAddressId(bad), bad).toBeUndefined()
    }
  })

  it('round-trips cursors and rejects ones it did not make', () => {
    for (const id of [1n, 42n, 9223372036854775807n]) expect(decodeCursor(encodeCursor(id))).toBe(id)
    for (const bad of ['', 'MQ==', 'M Q', '!!', 'MA', encodeCursor(1n) + 'x']) expect(decodeCursor(bad), bad).toBeUndefined()
  })
})
