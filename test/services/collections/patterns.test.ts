import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/options.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { bodyChecker } from '../../../src/services/collections/validation.js'
import { MAX_PATTERN_PROGRAM } from '../../../src/lib/linear-pattern.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { gql } from '../../graphql/helpers.js'
import { declarationFiles } from './fixture.js'

/**
 * Declared patterns cannot stall the server (issue 36, item 4): they run on
 * RE2, whose time is linear in the text, and what RE2 cannot run is refused
 * at declaration with its JSON path. On a backtracking engine `^(a+)+$`
 * against 40 `a`s and a `!` takes hours: these tests would time out.
 */
const files = declarationFiles()
const CATASTROPHIC = '^(a+)+$'
const ATTACK = `${'a'.repeat(40)}!`
const books = (pattern: string): unknown => ({ collections: { books: { schema: { type: 'object', properties: { title: { type: 'string' }, code: { type: 'string', pattern } }, required: ['title'] } } } })

function refusal (pattern: string): string {
  const path = files.write('p.json', books(pattern))
  try {
    fromFile(path, '--collections')
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message.replace(path, 'FILE')
  }
  throw new Error('accepted')
}

describe('patterns RE2 cannot run are refused at declaration, with their path', () => {
  it.each([
    ['a backreference', '^(a)\\1$'],
    ['a lookahead', '^(?=a)a$'],
    ['a negative lookbehind', '(?<!a)b']
  ])('refuses %s', (_what, pattern) => {
    const message = refusal(pattern)
    expect(message).toMatch(/^FILE: collections\.books\.schema\.properties\.code\.pattern: cannot be checked in linear time \(.+\): rqs checks patterns with RE2, which has no backreferences/)
  })

  it('refuses a pattern too large to check quickly, naming the limit', () => {
    expect(refusal('^(?:\\w{1,20}\\s?){1,50}$')).toMatch(new RegExp(`^FILE: collections\\.books\\.schema\\.properties\\.code\\.pattern: is too large to check quickly \\(\\d+ RE2 instructions, at most ${MAX_PATTERN_PROGRAM}\\)`))
  })

  it('accepts the catastrophic pattern (RE2 runs it in linear time) and JavaScript spellings', () => {
    for (const pattern of [CATASTROPHIC, '^\\u00e9\\d{3}$', '^(?<year>\\d{4})-\\d{2}$', '^[0-9-]{10,17}$']) {
      expect(fromFile(files.write('ok.json', books(pattern)), '--collections').declared).toHaveLength(1)
    }
  })

  it('rqs import checks a line with the same engine', () => {
    const [collection] = fromFile(files.write('ok.json', books(CATASTROPHIC)), '--collections').declared
    const check = bodyChecker({ type: 'object', properties: collection?.properties ?? {} })
    expect(check({ code: ATTACK })).toMatchObject({ reason: expect.stringContaining('code') })
    expect(check({ code: 'aaaa' })).toEqual({ ok: true })
    // A value of the most a field holds, against a pattern at the size limit.
    const big = fromFile(files.write('big.json', books('^(?:\\w{1,20}\\s?){1,10}$')), '--collections').declared[0]
    expect(bodyChecker({ type: 'object', properties: big?.properties ?? {} })({ code: `${'ab'.repeat(5000)}!` })).toHaveProperty('reason')
  })
})

describe('a catastrophic pattern over HTTP and GraphQL', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer({ collections: fromFile(files.write('books.json', books(CATASTROPHIC)), '--collections') })
  })
  afterAll(async () => { await server.close() })

  it('a POST answers 400 while a concurrent /healthz answers', async () => {
    const [post, health] = await Promise.all([
      request(`${server.origin}/books`, { method: 'POST', json: { title: 'T', code: ATTACK } }),
      request(`${server.origin}/healthz`)
    ])
    expect(post.status).toBe(400)
    expect(post.text).toContain('code')
    expect(health.status).toBe(200)
    expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'T', code: 'aaa' } })).status).toBe(201)
  }, 20_000)

  it('a GraphQL mutation is refused the same way', async () => {
    const [created, health] = await Promise.all([
      gql(server.origin, 'mutation ($b: BookInput!) { createBook(input: $b) { outcome } }', { b: { title: 'T', code: ATTACK } }),
      request(`${server.origin}/healthz`)
    ])
    expect(created.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_FAILED', errors: [{ field: 'code' }] })
    expect(health.status).toBe(200)
  }, 20_000)
})
