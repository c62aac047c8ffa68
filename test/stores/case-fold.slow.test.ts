import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { fold, foldChar } from '../../src/domain/case-fold.js'
import { CASE_FOLDING, CASE_FOLDING_UNICODE_VERSION } from '../../src/domain/case-folding-table.js'

/**
 * The one folding rule behind `contains` and the search (src/domain/case-fold.ts):
 * Unicode's full default case folding with canonical normalisation. The table is
 * generated (scripts/case-folding.ts); these tests check it against what V8 knows
 * on its own and check the fast path against the definition.
 */
describe('case folding', () => {
  it('folds what toLowerCase does not: final sigma, ß and ẞ, ligatures, Kelvin sign, Cherokee', () => {
    expect(fold('ΣΊΣΥΦΟΣ')).toBe(fold('Σίσυφος'))
    expect(fold('Σίσυφος')).toBe('σίσυφοσ')
    expect(fold('Straße')).toBe('strasse')
    expect(fold('STRAẞE')).toBe('strasse')
    expect(fold('ﬁle')).toBe('file')
    expect(fold('\u212A')).toBe('k')
    expect(fold('ſ')).toBe('s')
    expect(fold('Ꭰꭰ')).toBe('ᎠᎠ') // Cherokee folds to its upper case
    expect(fold('ϐϑϕϖϰϱϵ')).toBe('βθφπκρε')
  })

  it('keeps the dotted and dotless i apart, as the default (not Turkic) folding does', () => {
    expect(fold('İstanbul')).toBe('i\u0307stanbul')
    expect(fold('ISTANBUL')).toBe('istanbul')
    expect(fold('ı')).toBe('ı')
    expect(fold('I')).toBe('i')
    expect(fold('İSTANBUL').includes(fold('istanbul'))).toBe(false)
  })

  it('matches canonically equivalent spellings and never half a composed character', () => {
    expect(fold('Cafe\u0301')).toBe(fold('Café'))
    expect(fold('Α\u0301ρης')).toBe(fold('Άρης'))
    expect(fold('ΆΡΗΣ')).toBe(fold('άρης'))
    expect(fold('café').includes(fold('e'))).toBe(false)
    expect(fold('ǰ')).toBe('ǰ') // composed again after its full folding j + U+030C
  })

  it('leaves ASCII punctuation, digits and compatibility characters alone', () => {
    expect(fold('A-Z 0_9 %')).toBe('a-z 0_9 %')
    expect(fold('①²ｆ')).toBe('①²ｆ') // no NFKC: full-width and circled characters are not case
  })

  it(`the table (Unicode ${CASE_FOLDING_UNICODE_VERSION}) agrees with V8's own simple case folding (RegExp iu) on every one-character mapping`, () => {
    const simple = CASE_FOLDING.filter((row) => row.length === 2)
    expect(simple.length).toBeGreaterThan(1400)
    expect(CASE_FOLDING.length - simple.length).toBeGreaterThan(100) // the full (F) mappings
    const disagree = simple.filter(([from, to]) => {
      const re = new RegExp(`^\\u{${(from as number).toString(16)}}$`, 'iu')
      return !re.test(String.fromCodePoint(to as number))
    })
    expect(disagree).toEqual([])
  })

  it('lower-casing first gives the definition, NFC(fold each character of NFD(x)), for every code point', () => {
    const wrong: string[] = []
    for (let cp = 0; cp <= 0x10FFFF; cp++) {
      if (cp >= 0xD800 && cp <= 0xDFFF) continue
      const c = String.fromCodePoint(cp)
      const defined = [...c.normalize('NFD')].map(foldChar).join('').normalize('NFC')
      if (fold(c) !== defined) wrong.push(cp.toString(16))
    }
    expect(wrong).toEqual([])
  })

  it('is the definition on any text, and folding twice changes nothing (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 12 }), (text) => {
      const folded = fold(text)
      expect(folded).toBe([...text.normalize('NFD')].map(foldChar).join('').normalize('NFC'))
      expect(fold(folded)).toBe(folded)
      expect(fold(text.toLowerCase())).toBe(folded)
    }), { numRuns: 2000 })
  })
})
