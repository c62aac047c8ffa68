import { describe, expect, it } from 'vitest'
import { cachedLookup, isPublicAddress, parseTarget, resolveTarget, TargetRefused, type Lookup, type ResolvedTarget } from '../../../src/services/webhooks/targets.js'
import { matches, badPattern } from '../../../src/services/webhooks/events.js'
import { sign } from '../../../src/services/webhooks/signing.js'
import { resolveConfig } from '../../../src/options.js'

const resolvesTo = (...addresses: string[]): Lookup => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))

describe('webhook targets', () => {
  it('tells public addresses from loopback, private, link-local, CGNAT, metadata and reserved ones', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(a), a).toBe(true)
    for (const a of ['127.0.0.1', '127.8.9.10', '10.0.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.100.100.200', '0.0.0.0', '255.255.255.255',
      '224.0.0.1', '198.18.0.1', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1', '64:ff9b::a00:1', 'ff02::1', 'nonsense']) {
      expect(isPublicAddress(a), a).toBe(false)
    }
  })

  it('checks every address a name resolves to, unless the name or address is allowed', async () => {
    const url = new URL('https://hooks.example.com/in')
    await expect(resolveTarget(url, new Set(), resolvesTo('93.184.216.34'))).resolves.toEqual({ address: '93.184.216.34', family: 4 })
    // One private address among public ones is enough to refuse: the connection could go to either.
    await expect(resolveTarget(url, new Set(), resolvesTo('93.184.216.34', '10.0.0.5'))).rejects.toThrow(/resolves to 10\.0\.0\.5/)
    await expect(resolveTarget(url, new Set(['hooks.example.com']), resolvesTo('10.0.0.5'))).resolves.toEqual({ address: '10.0.0.5', family: 4 })
    await expect(resolveTarget(url, new Set(['10.0.0.5']), resolvesTo('10.0.0.5'))).resolves.toEqual({ address: '10.0.0.5', family: 4 })
    await expect(resolveTarget(url, new Set(), async () => { throw Object.assign(new Error('x'), { code: 'ENOTFOUND' }) })).rejects.toThrow(/does not resolve \(ENOTFOUND\)/)
    await expect(resolveTarget(new URL('http://[::1]:8080/'), new Set(), resolvesTo())).rejects.toBeInstanceOf(TargetRefused)
    await expect(resolveTarget(new URL('http://[::1]:8080/'), new Set(['::1']), resolvesTo())).resolves.toEqual({ address: '::1', family: 6 })
  })

  it('resolves a host once per TTL for the attempts, and still refuses a private address the host moved to once the cached public one expired', async () => {
    const url = new URL('https://hooks.example.com/in')
    let answer = ['93.184.216.34']
    let lookups = 0
    let clock = 1_000_000
    const lookup = cachedLookup(async () => { lookups++; return answer.map((address): ResolvedTarget => ({ address, family: 4 })) }, 10_000, () => clock)
    await Promise.all([resolveTarget(url, new Set(), lookup), resolveTarget(url, new Set(), lookup)])
    await expect(resolveTarget(url, new Set(), lookup)).resolves.toEqual({ address: '93.184.216.34', family: 4 })
    expect(lookups).toBe(1)
    // The host now points inside: within the TTL the public answer is used (and connected to, pinned); after it, refused.
    answer = ['10.0.0.5']
    clock += 9_999
    await expect(resolveTarget(url, new Set(), lookup)).resolves.toEqual({ address: '93.184.216.34', family: 4 })
    clock += 1
    await expect(resolveTarget(url, new Set(), lookup)).rejects.toThrow(/resolves to 10\.0\.0\.5/)
    expect(lookups).toBe(2)
    // A private answer is kept like a public one, and checked on every attempt, not once.
    await expect(resolveTarget(url, new Set(), lookup)).rejects.toThrow(/resolves to 10\.0\.0\.5/)
    expect(lookups).toBe(2)
    // A failed resolution is not kept: the next attempt asks again.
    clock += 10_000
    answer = []
    const failing = cachedLookup(async () => { lookups++; throw Object.assign(new Error('x'), { code: 'EAI_AGAIN' }) }, 10_000, () => clock)
    await expect(resolveTarget(url, new Set(), failing)).rejects.toThrow(/does not resolve \(EAI_AGAIN\)/)
    await expect(resolveTarget(url, new Set(), failing)).rejects.toThrow(/does not resolve/)
    expect(lookups).toBe(4)
  })

  it('accepts only http and https URLs without credentials', () => {
    expect(parseTarget('https://a.example/x?y=1').href).toBe('https://a.example/x?y=1')
    for (const bad of ['file:///etc/passwd', 'gopher://a.example/', 'https://u:p@a.example/', '/relative', 'javascript:alert(1)']) expect(() => parseTarget(bad), bad).toThrow(TargetRefused)
  })
})

describe('webhook events', () => {
  it('match by collection and kind, either may be *', () => {
    expect(matches(['books.*'], 'books.created')).toBe(true)
    expect(matches(['*.deleted'], 'books.deleted')).toBe(true)
    expect(matches(['*'], 'authors.replaced')).toBe(true)
    expect(matches(['authors.created'], 'authors.replaced')).toBe(false)
    expect(matches(['books.*'], 'bookshelves.created')).toBe(false)
    expect(badPattern(['books.*', 'authors.created', '*', '*.deleted'], ['books', 'authors'])).toBeUndefined()
    expect(badPattern(['books.updated'], ['books'])).toBe('books.updated')
    expect(badPattern(['films.*'], ['books'])).toBe('films.*')
    expect(badPattern(['books.created.x'], ['books'])).toBe('books.created.x')
  })
})

describe('webhook signatures', () => {
  it('follow the Standard Webhooks example', () => {
    // The example of the Standard Webhooks specification (standard-webhooks/spec.md).
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
    const body = '{"test": 2432232314}'
    expect(sign(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, body)).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })
})

describe('webhook options', () => {
  it('are off by default; --webhook-allow-hosts takes names and addresses like --host', () => {
    expect(resolveConfig({}, {}).webhooks).toMatchObject({ enabled: false, allowHosts: [], timeoutMs: 10_000, retryPeriodMs: 86_400_000 })
    const config = resolveConfig({ webhooks: true, 'webhook-allow-hosts': '127.0.0.1, Hooks.Internal,[::1]', 'webhook-timeout': '2s' }, {})
    expect(config.webhooks).toMatchObject({ enabled: true, allowHosts: ['127.0.0.1', 'hooks.internal', '::1'], timeoutMs: 2_000 })
    expect(resolveConfig({}, { RQS_WEBHOOKS: 'true', RQS_WEBHOOK_RETRY_PERIOD_MS: '1h' }).webhooks).toMatchObject({ enabled: true, retryPeriodMs: 3_600_000 })
    expect(() => resolveConfig({ 'webhook-allow-hosts': 'bad host!' }, {})).toThrow(/webhook-allow-hosts/)
    expect(resolveConfig({ 'admin-any-address': true }, {}).security.adminAnyAddress).toBe(true)
    expect(resolveConfig({ 'webhook-lease': '5s', 'webhook-timeout': '2s' }, {}).webhooks.leaseMs).toBe(5_000)
    expect(() => resolveConfig({ 'webhook-lease': '5s' }, {})).toThrow('--webhook-lease (5s) must be longer than --webhook-timeout (10s)')
  })

  it('--webhook-concurrency: 16 attempts at once per webhook unless set, 1 to 256', () => {
    expect(resolveConfig({}, {}).webhooks.concurrency).toBe(16)
    expect(resolveConfig({ 'webhook-concurrency': '4' }, {}).webhooks.concurrency).toBe(4)
    expect(resolveConfig({}, { RQS_WEBHOOK_CONCURRENCY: '256' }).webhooks.concurrency).toBe(256)
    expect(() => resolveConfig({ 'webhook-concurrency': '0' }, {})).toThrow('--webhook-concurrency must be at least 1')
    expect(() => resolveConfig({ 'webhook-concurrency': '257' }, {})).toThrow(/webhook-concurrency must be between 1 and 256/)
    expect(() => resolveConfig({ 'webhook-concurrency': 'many' }, {})).toThrow(/webhook-concurrency must be a non-negative integer/)
  })
})
