import { describe, expect, it } from 'vitest'
import { isStorableText } from '../../src/lib/storable-text.js'
import { LOCAL_STORES, storeKinds } from '../stores/harness.js'
import { TRICKY, UNSTORABLE, textFidelitySuite } from './text-fidelity.suite.js'

describe('the text rule', () => {
  it('accepts every well-formed string without U+0000 and refuses the rest', () => {
    for (const text of TRICKY) expect(isStorableText(text), JSON.stringify(text)).toBe(true)
    for (const text of UNSTORABLE) expect(isStorableText(text), JSON.stringify(text)).toBe(false)
  })
})

textFidelitySuite(storeKinds(LOCAL_STORES))
