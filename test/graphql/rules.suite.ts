import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runExport } from '../../src/commands/export.js'
import type { CommandIO } from '../../src/commands/common.js'
import type { ConfigOverrides } from '../../src/options.js'
import { fromFile } from '../../src/services/collections/config.js'
import { generateToken, tokenEntry, type Scope } from '../../src/http/security/tokens.js'
import { request, startServer, type RunningServer } from '../helpers/server.js'
import { connectFeed, type FeedConnection } from '../helpers/sse.js'
import { bearer, security } from '../http/security/helpers.js'
import { gql, subscribe } from './helpers.js'

/**
 * The record rules (docs/rules.md) on GraphQL and the change feed, as an
 * attacker would try them: five callers (anonymous, alice, bob, an editor,
 * an admin) × examples/notes.json (notes owned by their author; public
 * ones readable by all, private ones by their author and editors; `email`
 * only for its author) × queries, relations, aggregates, mutations,
 * subscriptions and the feed. rules.test.ts runs it on memory and SQLite,
 * rules-pg.test.ts on PostgreSQL.
 */

export type CallerName = 'anonymous' | 'alice' | 'bob' | 'editor' | 'admin'
export const CALLERS: readonly CallerName[] = ['anonymous', 'alice', 'bob', 'editor', 'admin']

/** The notes example with comments that reference notes (no rules of their own): relations follow the notes' view rule. */
export async function rulesDeclarations (): Promise<Record<string, unknown>> {
  const notes = JSON.parse(await readFile(new URL('../../examples/notes.json', import.meta.url), 'utf8')) as { collections: Record<string, unknown> }
  return {
    collections: {
      ...notes.collections,
      comments: { schema: { type: 'object', properties: { text: { type: 'string' }, note: { type: 'integer', 'x-references': 'notes' } }, required: ['text'] } }
    }
  }
}

export interface RulesServer {
  server: RunningServer
  /** The request headers of each caller (none for anonymous). */
  as: (caller: CallerName) => Record<string, string>
  close: () => Promise<void>
}

/** A server with the notes rules and a token for each caller (alice, bob, editor: read and write; admin: admin too); anonymous callers may read. */
export async function rulesServer (store: ConfigOverrides['store'] | undefined): Promise<RulesServer> {
  const dir = await mkdtemp(join(tmpdir(), 'rqs-rules-'))
  const tokens: Record<string, string> = {}
  const entries = ([['alice', ['read', 'write'], []], ['bob', ['read', 'write'], []], ['editor', ['read', 'write'], ['editor']], ['admin', ['read', 'write', 'admin'], []]] as Array<[string, Scope[], string[]]>)
    .map(([name, scopes, roles]) => { tokens[name] = generateToken(); return tokenEntry(tokens[name], name, scopes, { roles }) })
  await writeFile(join(dir, 'tokens.json'), JSON.stringify({ tokens: entries }))
  await writeFile(join(dir, 'notes.json'), JSON.stringify(await rulesDeclarations()))
  const server = await startServer({
    collections: fromFile(join(dir, 'notes.json'), '--collections'),
    security: security({ authTokensFile: join(dir, 'tokens.json'), authPublicRead: true, authFailureLimit: { max: 10_000, windowMs: 60_000 } }),
    ...(store === undefined ? {} : { store })
  })
  return {
    server,
    as: (caller) => caller === 'anonymous' ? {} : bearer(tokens[caller] as string),
    close: async () => { await server.close(); await rm(dir, { recursive: true, force: true }) }
  }
}

export function rulesSuite (store: () => ConfigOverrides['store'] | undefined): void {
  let rules: RulesServer
  let base: string
  /** The notes made before the tests, by title. */
  const ids: Record<string, string> = {}
  const run = async (caller: CallerName, query: string): Promise<any> => (await gql(base, query, undefined, rules.as(caller))).body

  beforeAll(async () => {
    rules = await rulesServer(store())
    base = rules.server.origin
    // Each author creates their own notes: the owner comes from the token.
    for (const [caller, title, open, email] of [['alice', 'alice private', false, 'alice@example.org'], ['alice', 'alice public', true, 'alice@example.org'], ['bob', 'bob private', false, 'bob@example.org']] as const) {
      const created = await run(caller, `mutation { createNote(input: {title: "${title}", public: ${String(open)}, email: "${email}"}) { record { id author } } }`)
      expect(created.data.createNote.record.author).toBe(caller)
      ids[title] = created.data.createNote.record.id
    }
    for (const title of Object.keys(ids)) await run('admin', `mutation { createComment(input: {text: "on ${title}", note: ${ids[title] as string}}) { record { id } } }`)
  })
  afterAll(async () => { await (rules as RulesServer | undefined)?.close() })

  /** What each caller may see: the titles in id order, and whose email is visible. */
  const SEES: Record<CallerName, { titles: string[], emails: string[] }> = {
    anonymous: { titles: ['alice public'], emails: [] },
    alice: { titles: ['alice private', 'alice public'], emails: ['alice private', 'alice public'] },
    bob: { titles: ['alice public', 'bob private'], emails: ['bob private'] },
    editor: { titles: ['alice private', 'alice public', 'bob private'], emails: [] },
    admin: { titles: ['alice private', 'alice public', 'bob private'], emails: ['alice private', 'alice public', 'bob private'] }
  }
  const expectedNodes = (caller: CallerName): Array<{ title: string, email: string | null }> =>
    SEES[caller].titles.map((title) => ({ title, email: SEES[caller].emails.includes(title) ? `${title.split(' ')[0] as string}@example.org` : null }))

  it.each(CALLERS)('%s lists exactly the notes the list rule gives, counted and paged exactly, with email only where x-read holds', async (caller) => {
    const all = await run(caller, '{ notes(filter: {title: {contains: "private"}}) { totalCount } everything: notes { totalCount nodes { title email } } }')
    expect(all.errors).toBeUndefined()
    expect(all.data.everything).toEqual({ totalCount: SEES[caller].titles.length, nodes: expectedNodes(caller) })
    expect(all.data.notes.totalCount).toBe(SEES[caller].titles.filter((t) => t.includes('private')).length)
    // Paging one record at a time walks the same records, and no further.
    const titles: string[] = []
    let after: string | null = null
    for (;;) {
      const page: any = await run(caller, `{ notes(first: 1${after === null ? '' : `, after: ${JSON.stringify(after)}`}) { nodes { title } pageInfo { hasNextPage endCursor } } }`)
      titles.push(...page.data.notes.nodes.map((n: { title: string }) => n.title))
      if (page.data.notes.pageInfo.hasNextPage !== true) break
      after = page.data.notes.pageInfo.endCursor
    }
    expect(titles).toEqual(SEES[caller].titles)
  })

  it('one document text sent by every caller in turn (parsed, weighed and compiled once) answers each with what its rules give it', async () => {
    // The same text and variables each time: everything kept per document is shared, the rules' narrowing is each caller's.
    const query = 'query ($first: Int) { notes(first: $first) { totalCount nodes { title email } pageInfo { hasNextPage } } }'
    for (const round of [1, 2]) {
      for (const caller of [...CALLERS, ...[...CALLERS].reverse()]) {
        const res = (await gql(base, query, { first: 10 }, rules.as(caller))).body
        expect(res, `${caller}, round ${round}`).toEqual({ data: { notes: { totalCount: SEES[caller].titles.length, nodes: expectedNodes(caller), pageInfo: { hasNextPage: false } } } })
      }
    }
  })

  it.each(CALLERS)('%s gets a note by id only when the view rule holds (null otherwise, as a missing one)', async (caller) => {
    for (const title of Object.keys(ids)) {
      const res = await run(caller, `{ notesById(id: "${ids[title] as string}") { title } }`)
      expect(res).toEqual({ data: { notesById: SEES[caller].titles.includes(title) ? { title } : null } })
    }
  })

  it.each(CALLERS)('%s aggregates only the notes it may list', async (caller) => {
    const res = await run(caller, '{ notesAggregate(groupBy: ["public"]) { key count } }')
    const visible = SEES[caller].titles
    const groups = [{ key: { public: false }, count: visible.filter((t) => t.includes('private')).length }, { key: { public: true }, count: visible.filter((t) => t.includes('public')).length }]
    expect(res.data.notesAggregate).toEqual(groups.filter((g) => g.count > 0))
  })

  it.each(CALLERS)('%s follows a comment to its note only when it may view the note (a reference to another reads null)', async (caller) => {
    const res = await run(caller, '{ comments(sort: [id_ASC]) { nodes { text note { title email } } } }')
    expect(res.errors).toBeUndefined()
    const byNote = Object.fromEntries(expectedNodes(caller).map((n) => [n.title, n]))
    expect(res.data.comments.nodes).toEqual(Object.keys(ids).map((title) => ({ text: `on ${title}`, note: byNote[title] ?? null })))
  })

  it.each(CALLERS)('%s filters comments through their note (note__title, note__email) only over the notes it may list and the emails it may read', async (caller) => {
    const texts = (connection: { nodes: Array<{ text: string }> }): string[] => connection.nodes.map((n) => n.text)
    const res = await run(caller, `{
      byTitle: comments(filter: { note__title: { contains: "private" } }, sort: [id_ASC]) { nodes { text } }
      byEmail: comments(filter: { note__email: { eq: "alice@example.org" } }, sort: [id_ASC]) { nodes { text } totalCount }
      notMine: comments(filter: { not: { text: { eq: "none" } }, note__author: { eq: "alice" } }, sort: [id_ASC]) { nodes { text } }
    }`)
    expect(res.errors).toBeUndefined()
    // A note out of the caller's reach never matches, so its title does not leak through the comments that name it.
    expect(texts(res.data.byTitle)).toEqual(SEES[caller].titles.filter((t) => t.includes('private')).map((t) => `on ${t}`))
    // An email the caller may not read never matches either (bob and the editor may list alice's notes, not read her email).
    const aliceEmails = SEES[caller].emails.filter((t) => t.startsWith('alice'))
    expect(texts(res.data.byEmail)).toEqual(aliceEmails.map((t) => `on ${t}`))
    expect(res.data.byEmail.totalCount).toBe(aliceEmails.length)
    expect(texts(res.data.notMine)).toEqual(SEES[caller].titles.filter((t) => t.startsWith('alice')).map((t) => `on ${t}`))
    // A back-relation's filter through a reference is narrowed alike: bob sees alice's public note, not that its email matches.
    const back = await run(caller, '{ notes(first: 100, sort: [id_ASC]) { nodes { title comments_via_note(filter: { note__email: { eq: "alice@example.org" } }) { text } } } }')
    expect(back.errors).toBeUndefined()
    const matched = (back.data.notes.nodes as Array<{ title: string, comments_via_note: Array<{ text: string }> }>).flatMap((n) => texts({ nodes: n.comments_via_note }))
    expect(matched).toEqual(aliceEmails.map((t) => `on ${t}`))
  })

  it('writes: the owner is the caller, another owner is OWNER_MISMATCH, a rule that does not hold is RULE_DENIED, a note out of view is not found', async () => {
    const code = (body: any): string => body.errors?.[0]?.extensions?.code
    expect(code(await run('bob', 'mutation { createNote(input: {title: "forged", author: "alice"}) { record { id } } }'))).toBe('OWNER_MISMATCH')
    expect(code(await run('anonymous', 'mutation { createNote(input: {title: "x"}) { record { id } } }'))).toBe('UNAUTHENTICATED')
    const alicePublic = ids['alice public'] as string
    const alicePrivate = ids['alice private'] as string
    for (const caller of ['bob', 'editor'] as const) {
      // Bob and the editor may view alice's public note but not change it.
      expect(code(await run(caller, `mutation { updateNote(id: "${alicePublic}", patch: {title: "mine"}) { outcome } }`))).toBe('RULE_DENIED')
      expect(code(await run(caller, `mutation { replaceNote(id: "${alicePublic}", input: {title: "mine"}) { outcome } }`))).toBe('RULE_DENIED')
      expect(code(await run(caller, `mutation { deleteNote(id: "${alicePublic}") }`))).toBe('RULE_DENIED')
    }
    // Bob may not even view alice's private note: not found, as a missing one.
    expect(code(await run('bob', `mutation { updateNote(id: "${alicePrivate}", patch: {title: "mine"}) { outcome } }`))).toBe('RECORD_NOT_FOUND')
    expect(code(await run('bob', `mutation { deleteNote(id: "${alicePrivate}") }`))).toBe('RECORD_NOT_FOUND')
    // An If-Match does not tell a record out of view from a missing one either.
    expect(code(await run('bob', `mutation { deleteNote(id: "${alicePrivate}", ifMatch: "\\"stale\\"") }`))).toBe('RECORD_NOT_FOUND')
    expect(code(await run('bob', `mutation { updateNote(id: "${alicePrivate}", patch: {title: "x"}, ifMatch: "\\"stale\\"") { outcome } }`))).toBe('RECORD_NOT_FOUND')
    expect(code(await run('alice', `mutation { updateNote(id: "${alicePrivate}", patch: {author: "bob"}) { outcome } }`))).toBe('OWNER_MISMATCH')
    const kept = await run('admin', `{ a: notesById(id: "${alicePublic}") { title author } b: notesById(id: "${alicePrivate}") { title author } }`)
    expect(kept.data).toEqual({ a: { title: 'alice public', author: 'alice' }, b: { title: 'alice private', author: 'alice' } })
    // Alice changes her own note (the owner kept by a replace that leaves it out); an admin passes every rule.
    const replaced = await run('alice', `mutation { replaceNote(id: "${alicePrivate}", input: {title: "alice private", public: false, email: "alice@example.org"}) { record { author } } }`)
    expect(replaced.data.replaceNote.record.author).toBe('alice')
    expect((await run('admin', `mutation { updateNote(id: "${alicePrivate}", patch: {body: "seen by the admin"}) { record { author body } } }`)).data.updateNote.record).toEqual({ author: 'alice', body: 'seen by the admin' })
  })

  it('a keyed mutation replayed by another caller is refused, never answered with the first caller\'s record', async () => {
    const key = { 'idempotency-key': `rules-${Date.now()}` }
    const query = 'mutation { createNote(input: {title: "keyed", public: false}) { record { id author } } }'
    const first = (await gql(base, query, undefined, { ...rules.as('alice'), ...key })).body
    expect(first.data.createNote.record.author).toBe('alice')
    const other = (await gql(base, query, undefined, { ...rules.as('bob'), ...key })).body
    expect(other.errors[0].extensions.code).toBe('IDEMPOTENCY_KEY_REUSED')
    const again = (await gql(base, query, undefined, { ...rules.as('alice'), ...key })).body
    expect(again.data.createNote.record).toEqual(first.data.createNote.record)
    await run('alice', `mutation { deleteNote(id: "${first.data.createNote.record.id as string}") }`)
  })

  it('the feed and subscriptions carry each caller only the changes of notes it may view, email only where it may see it', async () => {
    const feeds = new Map<CallerName, FeedConnection>()
    const subs = new Map<CallerName, Awaited<ReturnType<typeof subscribe>>>()
    try {
      for (const caller of CALLERS) {
        const feed = await connectFeed(`${base}/events?services=notes`, rules.as(caller))
        expect(feed.status).toBe(200)
        feeds.set(caller, feed)
        // The subscription starts after the change the feed is live from: no write below can come before it.
        const live = (await feed.waitForEvent('ready')).id as string
        subs.set(caller, await subscribe(base, `subscription { notesChanged(after: ${live}) { kind record { title email } } }`, undefined, rules.as(caller)))
      }
      const p = (await run('alice', 'mutation { createNote(input: {title: "P", public: false, email: "a@example.org"}) { record { id } } }')).data.createNote.record.id as string
      const q = (await run('alice', 'mutation { createNote(input: {title: "Q", public: true, email: "a@example.org"}) { record { id } } }')).data.createNote.record.id as string
      await run('bob', 'mutation { createNote(input: {title: "R", public: false}) { record { id } } }')
      // Q leaves everyone's view but its author's and the editor's: to the others it is gone.
      await run('alice', `mutation { updateNote(id: "${q}", patch: {public: false}) { outcome } }`)
      await run('alice', `mutation { deleteNote(id: "${p}") }`)
      // The last change, which every caller sees: once it arrived, everything before it has.
      await run('admin', 'mutation { createNote(input: {title: "Z", public: true}) { record { id } } }')
      const shown = (title: string, email: boolean): string => `${title}${email ? ' a@example.org' : ''}`
      const expected: Record<CallerName, string[]> = {
        anonymous: ['created Q', 'deleted -', 'created Z'],
        alice: ['created P a@example.org', 'created Q a@example.org', 'replaced Q a@example.org', 'deleted -', 'created Z'],
        bob: ['created Q', 'created R', 'deleted -', 'created Z'],
        editor: ['created P', 'created Q', 'created R', 'replaced Q', 'deleted -', 'created Z'],
        admin: ['created P a@example.org', 'created Q a@example.org', 'created R', 'replaced Q a@example.org', 'deleted -', 'created Z']
      }
      for (const caller of CALLERS) {
        const want = expected[caller]
        const events = (await (feeds.get(caller) as FeedConnection).waitFor(want.length + 1)).slice(1)
        const seen = events.map((e) => {
          const data = JSON.parse(e.data)
          return `${(e.event as string).replace('notes.', '')} ${data.record === null ? '-' : shown(data.record.title, data.record.email !== undefined)}`
        })
        expect(seen, caller).toEqual(want)
        const sub = subs.get(caller) as Awaited<ReturnType<typeof subscribe>>
        const results = await sub.next(want.length)
        expect(results.map((r) => {
          const change = r.data.notesChanged
          return `${(change.kind as string).toLowerCase()} ${change.record === null ? '-' : shown(change.record.title, change.record.email !== null)}`
        }), caller).toEqual(want)
      }
      // Nothing more arrives: Z was the last change.
      await new Promise((resolve) => setTimeout(resolve, 200))
      for (const caller of CALLERS) expect((feeds.get(caller) as FeedConnection).events.length).toBe(expected[caller].length + 1)
    } finally {
      for (const feed of feeds.values()) feed.close()
      for (const sub of subs.values()) sub.close()
    }
  })

  it('a stream\'s filter sees only the fields its caller may read: bob cannot probe alice\'s hidden email', async () => {
    const filter = encodeURIComponent("email = 'probe@example.org' || title = 'marker'")
    const feeds = { alice: await connectFeed(`${base}/events?services=notes&filter=${filter}`, rules.as('alice')), bob: await connectFeed(`${base}/events?services=notes&filter=${filter}`, rules.as('bob')) }
    try {
      await feeds.alice.waitForEvent('ready')
      await feeds.bob.waitForEvent('ready')
      await run('alice', 'mutation { createNote(input: {title: "probed", public: true, email: "probe@example.org"}) { record { id } } }')
      await run('alice', 'mutation { createNote(input: {title: "marker", public: true}) { record { id } } }')
      const titles = (events: Array<{ data: string }>): string[] => events.slice(1).map((e) => JSON.parse(e.data).record.title)
      expect(titles(await feeds.alice.waitFor(3))).toEqual(['probed', 'marker'])
      expect(titles(await feeds.bob.waitFor(2))).toEqual(['marker'])
    } finally {
      feeds.alice.close()
      feeds.bob.close()
    }
  })

  it('GET /collections tells each caller which operations of a collection with rules it may attempt (the web app hides the others)', async () => {
    const expected: Record<CallerName, string[]> = {
      anonymous: ['list', 'view'],
      alice: ['list', 'view', 'create', 'update', 'delete'],
      bob: ['list', 'view', 'create', 'update', 'delete'],
      editor: ['list', 'view', 'create', 'update', 'delete'],
      admin: ['list', 'view', 'create', 'update', 'delete']
    }
    for (const caller of CALLERS) {
      const listing = await request(`${base}/collections`, { headers: rules.as(caller) })
      expect(listing.status).toBe(200)
      const byName = Object.fromEntries(listing.body.items.map((item: { name: string }) => [item.name, item]))
      expect(byName.notes.operations, caller).toEqual(expected[caller])
      // The notes each may change: its own (no condition for the admin, whom every rule lets through; none for anonymous, who may not write).
      const own = caller === 'admin' || caller === 'anonymous' ? {} : { update: { op: 'eq', field: 'author', value: caller }, delete: { op: 'eq', field: 'author', value: caller } }
      expect(byName.notes.conditions, caller).toEqual(own)
      // A collection without rules says nothing: every operation its scopes allow.
      expect(byName.comments).not.toHaveProperty('operations')
    }
  })

  it.each(CALLERS)('%s holds the same notes in its REST list, GraphQL list, export and feed replay', async (caller) => {
    type Seen = Record<string, { title: string, email: string | null }>
    const shown = (records: Array<{ id: string | number, title: string, email?: string | null }>): Seen =>
      Object.fromEntries(records.map((r) => [String(r.id), { title: r.title, email: r.email ?? null }]))
    const rest = await request(`${base}/notes?limit=100`, { headers: rules.as(caller) })
    expect(rest.status).toBe(200)
    const graphql = await run(caller, '{ notes(first: 100) { nodes { id title email } } }')
    const token = rules.as(caller).authorization?.replace('Bearer ', '')
    const exported = await exportOf(['--url', base, '--service', 'notes', ...(token === undefined ? [] : ['--token', token])])
    expect(exported.code, exported.stderr).toBe(0)
    // The feed from its first change on: the records each change leaves in view, folded by id.
    const feed = await connectFeed(`${base}/events?services=notes`, { ...rules.as(caller), 'last-event-id': '0' })
    const replayed: Seen = {}
    try {
      await feed.waitForEvent('ready')
      for (const event of feed.events) {
        if (event.event === 'ready' || event.event === undefined) continue
        const data = JSON.parse(event.data)
        if (data.record === null) Reflect.deleteProperty(replayed, String(data.id))
        else Object.assign(replayed, shown([data.record]))
      }
    } finally { feed.close() }
    const expected = shown(rest.body.items ?? rest.body)
    // Of the notes made first, exactly those the caller may see (an export with bob's token holds none of alice's private ones).
    const titles = Object.values(expected).map((note) => note.title)
    expect(Object.keys(ids).filter((title) => titles.includes(title))).toEqual(SEES[caller].titles)
    expect(shown(graphql.data.notes.nodes)).toEqual(expected)
    expect(shown(exported.stdout.trim().split('\n').map((line) => JSON.parse(line)))).toEqual(expected)
    expect(replayed).toEqual(expected)
  })
}

/** `rqs export --url` run in this process, its output kept. */
async function exportOf (argv: string[]): Promise<{ code: number, stdout: string, stderr: string }> {
  const stdout = new PassThrough()
  let out = ''
  stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
  let err = ''
  const io: CommandIO = { stdin: new PassThrough(), stdout, stderr: { write: (text: string) => { err += text; return true } } as CommandIO['stderr'], env: {} }
  const code = await runExport(argv, io)
  return { code, stdout: out, stderr: err }
}
