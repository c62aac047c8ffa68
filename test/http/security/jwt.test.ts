import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type JWK, type CryptoKey } from 'jose'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, expectShape, security, writeTokensFile, type TokensFile } from './helpers.js'

const ISSUER = 'https://idp.test/'
const AUDIENCE = 'rqs-api'

interface Key { kid: string, privateKey: CryptoKey, jwk: JWK }

async function makeKey (kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair('ES256')
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } }
}

interface Claims { scope?: string, sub?: string, aud?: string, iss?: string, exp?: string | number }

async function sign (key: Key, claims: Claims = {}): Promise<string> {
  const jwt = new SignJWT(claims.scope === undefined ? {} : { scope: claims.scope })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
    .setIssuer(claims.iss ?? ISSUER)
    .setAudience(claims.aud ?? AUDIENCE)
    .setSubject(claims.sub ?? 'alice')
    .setIssuedAt()
    .setExpirationTime(claims.exp ?? '5m')
  return await jwt.sign(key.privateKey)
}

/** A stand-in identity provider: serves whatever key set the test puts in `keys`, and counts downloads. */
class Jwks {
  keys: JWK[] = []
  downloads = 0
  readonly server: Server = createServer((_req, res) => {
    this.downloads++
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: this.keys }))
  })

  async start (): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/.well-known/jwks.json`
  }
}

let jwks: Jwks
let first: Key
let second: Key
let stranger: Key
let server: RunningServer
let tokens: TokensFile

beforeAll(async () => {
  ;[first, second, stranger] = await Promise.all([makeKey('k1'), makeKey('k2'), makeKey('k1')])
  jwks = new Jwks()
  jwks.keys = [first.jwk]
  const url = await jwks.start()
  tokens = await writeTokensFile({ ci: ['read'] })
  server = await startServer({
    // Many refused tokens from one address on purpose: a failure budget they cannot spend.
    security: security({ authJwksUrl: url, authIssuer: ISSUER, authAudience: AUDIENCE, authJwksCooldownMs: 0, authTokensFile: tokens.path, authFailureLimit: { max: 1000, windowMs: 60_000 } })
  })
})
afterAll(async () => {
  await server?.close()
  jwks?.server.close()
  await tokens?.remove()
})

async function get (path: string, token: string): ReturnType<typeof request> {
  return await request(`${server.origin}${path}`, { headers: bearer(token) })
}

describe('JWT access tokens verified against the identity provider JWKS', () => {
  it('a valid token with the read scope reads; scopes come from the space-separated scope claim', async () => {
    const token = await sign(first, { scope: 'openid read profile' })
    expect((await get('/students', token)).status).toBe(200)
    const write = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'A', city: 'B', postalCode: '1' }, headers: bearer(token) })
    expectShape(write, 'problem', 403, 'FORBIDDEN')
    expect(write.headers.get('www-authenticate')).toContain('scope="write"')
    const writer = await sign(first, { scope: 'read write', sub: 'bob' })
    expect((await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'A', city: 'B', postalCode: '1' }, headers: bearer(writer) })).status).toBe(201)
  })

  const refused: Array<[string, () => Promise<string>, RegExp]> = [
    ['an expired token', async () => await sign(first, { scope: 'read', exp: Math.floor(Date.now() / 1000) - 3600 }), /expired/],
    ['a token for another audience', async () => await sign(first, { scope: 'read', aud: 'another-api' }), /aud/],
    ['a token from another issuer', async () => await sign(first, { scope: 'read', iss: 'https://evil.test/' }), /iss/],
    ['a wrongly signed token (a key the provider does not have, with a known key id)', async () => await sign(stranger, { scope: 'read' }), /signature/],
    ['an unsigned token (alg none)', async () => new UnsecuredJWT({ scope: 'read' }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject('eve').setExpirationTime('5m').encode(), /./],
    ['a malformed token', async () => 'abc.def.ghi', /malformed/]
  ]
  for (const [name, make, reason] of refused) {
    it(`${name}: 401 invalid_token in each service's shape`, async () => {
      const token = await make()
      const students = await get('/students', token)
      expectShape(students, 'envelope', 401, 'UNAUTHENTICATED')
      expect(students.headers.get('www-authenticate')).toMatch(/^Bearer realm="rqs", error="invalid_token", error_description="[^"]*"$/)
      expect(students.headers.get('www-authenticate')).toMatch(reason)
      expectShape(await get('/v2/addresses', token), 'problem', 401, 'UNAUTHENTICATED')
      const graphql = await request(`${server.origin}/graphql`, { method: 'POST', json: { query: '{ albums { title } }' }, headers: bearer(token) })
      expectShape(graphql, 'graphql', 401, 'UNAUTHENTICATED')
    })
  }

  it('static tokens keep working beside JWTs', async () => {
    expect((await get('/students', tokens.tokens.ci as string)).status).toBe(200)
  })

  it('picks up a rotated key: a token naming an unknown key id fetches the key set again', async () => {
    expect((await get('/students', await sign(first, { scope: 'read' }))).status).toBe(200)
    const before = jwks.downloads
    // The provider rotates: the new key signs, the old one is withdrawn.
    jwks.keys = [second.jwk]
    expect((await get('/students', await sign(second, { scope: 'read' }))).status).toBe(200)
    expect(jwks.downloads).toBe(before + 1)
    // Keys are cached: more tokens of the new key need no download.
    expect((await get('/addresses', await sign(second, { scope: 'read', sub: 'carol' }))).status).toBe(200)
    expect(jwks.downloads).toBe(before + 1)
    const withdrawn = await get('/students', await sign(first, { scope: 'read' }))
    expectShape(withdrawn, 'envelope', 401, 'UNAUTHENTICATED')
    jwks.keys = [first.jwk]
  })
})

/** A token with exactly these claims (iss, aud, exp added unless given) and this `typ` header (none when null). */
async function signRaw (key: Key, claims: Record<string, unknown>, typ: string | null = 'at+jwt'): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  const header = typ === null ? { alg: 'ES256', kid: key.kid } : { alg: 'ES256', kid: key.kid, typ }
  return await new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now + 300, iat: now, ...claims }).setProtectedHeader(header).sign(key.privateKey)
}

/** Issue 19, item 9: what else an access token must be, and where providers put scopes. */
describe('JWT claims and header checked beyond the signature', () => {
  const read = async (token: string): Promise<Awaited<ReturnType<typeof request>>> => await get('/students', token)
  const write = async (token: string): Promise<Awaited<ReturnType<typeof request>>> =>
    await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'A', city: 'B', postalCode: '1' }, headers: bearer(token) })

  it('typ: at+jwt and application/at+jwt (RFC 9068), the generic JWT, or none, in any case', async () => {
    for (const typ of ['at+jwt', 'application/at+jwt', 'AT+JWT', 'JWT', null]) {
      expect((await read(await signRaw(first, { sub: 'alice', scope: 'read' }, typ))).status, String(typ)).toBe(200)
    }
  })

  it('typ of another kind of JWT (logout token, DPoP proof, security event), or not a string: 401', async () => {
    for (const typ of ['logout+jwt', 'dpop+jwt', 'application/secevent+jwt', 'jwt+other', 7 as unknown as string]) {
      const res = await read(await signRaw(first, { sub: 'alice', scope: 'read' }, typ))
      expectShape(res, 'envelope', 401, 'UNAUTHENTICATED')
      expect(res.headers.get('www-authenticate'), String(typ)).toContain('not an access token')
    }
  })

  it('a sub that is not a non-empty string is refused, never logged or limited as "[object Object]"', async () => {
    for (const sub of [{ id: 'alice' }, ['alice'], 42, '']) {
      const res = await read(await signRaw(first, { sub, scope: 'read' }))
      expectShape(res, 'envelope', 401, 'UNAUTHENTICATED')
      expect(res.headers.get('www-authenticate'), JSON.stringify(sub)).toContain('sub claim')
    }
  })

  it('an iat in the future beyond the 30 s clock tolerance is refused; within it, accepted', async () => {
    const now = Math.floor(Date.now() / 1000)
    const future = await read(await signRaw(first, { sub: 'alice', scope: 'read', iat: now + 3600 }))
    expectShape(future, 'envelope', 401, 'UNAUTHENTICATED')
    expect(future.headers.get('www-authenticate')).toContain('iat')
    expect((await read(await signRaw(first, { sub: 'alice', scope: 'read', iat: now + 10 }))).status).toBe(200)
  })

  it('scopes from scp as an array (Okta) or a string (Entra ID), and from scope as an array', async () => {
    expect((await read(await signRaw(first, { sub: 'okta-user', scp: ['openid', 'read'] }))).status).toBe(200)
    expectShape(await write(await signRaw(first, { sub: 'okta-user', scp: ['openid', 'read'] })), 'problem', 403, 'FORBIDDEN')
    expect((await write(await signRaw(first, { sub: 'entra-user', scp: 'read write' }))).status).toBe(201)
    expect((await read(await signRaw(first, { sub: 'array-user', scope: ['read'] }))).status).toBe(200)
    // Not strings: no scope at all.
    expectShape(await read(await signRaw(first, { sub: 'odd-user', scp: [{ read: true }], scope: 7 })), 'envelope', 403, 'FORBIDDEN')
  })
})

describe('an identity provider that does not answer', () => {
  let isolated: RunningServer
  beforeAll(async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve())) // nothing listens there now
    isolated = await startServer({ security: security({ authJwksUrl: `http://127.0.0.1:${port}/jwks`, authIssuer: ISSUER, authAudience: AUDIENCE }) })
  })
  afterAll(async () => { await isolated?.close() })

  it('is a 503 AUTH_UNAVAILABLE with Retry-After, not a 401 blaming the client', async () => {
    const res = await request(`${isolated.origin}/addresses`, { headers: bearer(await sign(first, { scope: 'read' })) })
    expectShape(res, 'problem', 503, 'AUTH_UNAVAILABLE')
    expect(res.headers.get('retry-after')).toBe('5')
  })
})

/** Issue 36, item 9: what a client is told about an unknown `crit` header and an unknown key id within the cool-down. */
describe('JWT refusals that say what to fix', () => {
  it('an unknown crit header parameter is refused as such, not as an algorithm not accepted', async () => {
    const now = Math.floor(Date.now() / 1000)
    const token = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', scope: 'read', exp: now + 300, iat: now })
      .setProtectedHeader({ alg: 'ES256', kid: first.kid, typ: 'at+jwt', crit: ['urn:example:policy'], 'urn:example:policy': 'strict' })
      .sign(first.privateKey, { crit: { 'urn:example:policy': true } })
    const res = await get('/students', token)
    expectShape(res, 'envelope', 401, 'UNAUTHENTICATED')
    expect(res.headers.get('www-authenticate')).toContain('does not understand (crit: \'urn:example:policy\')')
    expect(res.headers.get('www-authenticate')).not.toContain('algorithm')
  })

  it('an unknown key id within the JWKS cool-down is a 503 AUTH_UNAVAILABLE with Retry-After (the set was not fetched again); a key id the set lacks after a download is a 401', async () => {
    const provider = new Jwks()
    provider.keys = [first.jwk]
    const url = await provider.start()
    const cooling = await startServer({ security: security({ authJwksUrl: url, authIssuer: ISSUER, authAudience: AUDIENCE, authJwksCooldownMs: 60_000, authFailureLimit: { max: 1000, windowMs: 60_000 } }) })
    try {
      const unknown = await makeKey('k9')
      // The first token of the server: the set is downloaded for it, and lacks k9.
      const fetched = await request(`${cooling.origin}/addresses`, { headers: bearer(await sign(unknown, { scope: 'read' })) })
      expectShape(fetched, 'problem', 401, 'UNAUTHENTICATED')
      expect(provider.downloads).toBe(1)
      // Within the cool-down: not downloaded again, so not known to be wrong.
      const cooled = await request(`${cooling.origin}/addresses`, { headers: bearer(await sign(unknown, { scope: 'read' })) })
      expectShape(cooled, 'problem', 503, 'AUTH_UNAVAILABLE')
      expect(cooled.headers.get('retry-after')).toBe('60')
      expect(cooled.body.detail).toContain('fetched again in at most 60 s')
      expect(provider.downloads).toBe(1)
      // A key the set holds is still accepted meanwhile.
      expect((await request(`${cooling.origin}/addresses`, { headers: bearer(await sign(first, { scope: 'read' })) })).status).toBe(200)
    } finally {
      await cooling.close()
      provider.server.close()
    }
  })
})
