import { describe, expect, it } from 'vitest'
import { parseExactJson } from '../../../src/http/rest/json-body.js'
import { AppError } from '../../../src/http/errors/index.js'

/** The code a body is refused with, or 'ok'. */
function verdict (text: string): string {
  try {
    parseExactJson(text)
    return 'ok'
  } catch (err) {
    return err instanceof AppError ? err.code : String(err)
  }
}

describe('parseExactJson: forbidden members (the prototype walk runs only on texts that may hold one)', () => {
  it.each([
    ['a __proto__ member', '{"__proto__":{"x":1},"a":1}'],
    ['a nested __proto__ member', '{"a":{"b":[{"__proto__":{}}]}}'],
    ['an escaped __proto__', '{"\\u005f_proto__":{"x":1}}'],
    ['an escaped letter of __proto__', '{"__pr\\u006fto__":{"x":1}}'],
    ['a nested escaped __proto__', '{"a":[1,{"\\u005F\\u005Fproto\\u005F\\u005F":{}}]}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"x":1}}}'],
    ['an escaped constructor.prototype', '{"c\\u006fnstructor":{"prototype":{"x":1}}}'],
    ['a top-level array holding one', '[{"__proto__":{"x":1}}]']
  ])('refuses %s', (_what, text) => {
    expect(verdict(text)).toBe('FORBIDDEN_PROPERTY')
  })

  it.each([
    ['a plain body', '{"firstName":"A","lastName":"B","age":3}'],
    ['the words inside values', '{"a":"__proto__","b":"constructor"}'],
    ['a constructor member without a prototype', '{"constructor":"x"}'],
    ['an escape elsewhere', '{"a":"caf\\u00e9"}']
  ])('accepts %s', (_what, text) => {
    expect(verdict(text)).toBe('ok')
  })

  it('keeps integers beyond 2^53 exact, and only those', () => {
    expect(parseExactJson('{"id":9223372036854775807,"n":3,"f":1.5,"big":1e300}')).toEqual({ id: 9223372036854775807n, n: 3, f: 1.5, big: 1e300 })
  })
})
