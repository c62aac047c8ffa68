import { describe, expect, it } from 'vitest'
import { Authenticator } from '../../../src/http/security/auth.js'
import { generateToken, TokenSet, tokenEntry, type Principal } from '../../../src/http/security/tokens.js'

/**
 * What the authentication side tells those who hold a principal beyond one
 * request (the change feed's streams, issue 19): whether it would still be
 * accepted after a reload of the tokens file, or after its JWT's expiry.
 */
describe('TokenSet.holds across a reload', () => {
  const kept = generateToken()
  const removed = generateToken()
  const narrowed = generateToken()
  const renamed = generateToken()
  const before = new TokenSet([tokenEntry(kept, 'ci', ['read']), tokenEntry(removed, 'old', ['read']), tokenEntry(narrowed, 'app', ['read', 'write']), tokenEntry(renamed, 'x', ['read'])])
  const principal = (token: string): Principal => before.find(token) as Principal

  it('an entry with the same hash, name and scopes keeps its principal; one removed, renamed or with other scopes does not', () => {
    const after = new TokenSet([tokenEntry(kept, 'ci', ['read']), tokenEntry(narrowed, 'app', ['read']), tokenEntry(renamed, 'y', ['read'])], before)
    expect(after.holds(principal(kept))).toBe(true)
    expect(after.find(kept)).toBe(principal(kept))
    expect(after.holds(principal(removed))).toBe(false)
    expect(after.holds(principal(narrowed))).toBe(false)
    expect(after.holds(principal(renamed))).toBe(false)
    // Scopes given in another order are the same scopes.
    const reordered = new TokenSet([tokenEntry(narrowed, 'app', ['write', 'read'])], before)
    expect(reordered.holds(principal(narrowed))).toBe(true)
    // Without the set it replaces, a new set holds no principal of an older one.
    expect(new TokenSet([tokenEntry(kept, 'ci', ['read'])]).holds(principal(kept))).toBe(false)
  })
})

describe('Authenticator.stillValid', () => {
  it('a JWT principal until its expiry; a static token while its tokens file holds it', () => {
    const authenticator = new Authenticator(undefined, undefined)
    const jwt: Principal = { name: 'alice', kind: 'jwt', scopes: new Set(['read']), expiresAt: 10_000 }
    expect(authenticator.stillValid(jwt, 9_999)).toBe(true)
    expect(authenticator.stillValid(jwt, 10_000)).toBe(false)
    // A static token with no tokens file (cannot happen) is not taken as valid.
    expect(authenticator.stillValid({ name: 'ci', kind: 'token', scopes: new Set(['read']) })).toBe(false)
  })
})
