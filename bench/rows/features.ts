/**
 * What the newer capabilities cost a collection that uses none of them: a GET
 * and a POST on a declared collection of a server that declares nothing else,
 * against the same requests on a server whose OTHER collections use
 * references, rules, and a registered webhook (webhooks served). Memory store,
 * judged by CPU per request. Each round runs each server in a fresh process
 * (freshHttpContender): what one process costs a request is one draw of V8's
 * early optimisation, and a difference of a few per cent is only told apart
 * over several.
 */
import { compare, freshHttpContender } from '../lib/compare.js'
import { declaredSpec, LIBRARY, librarySetup, type SetupStep } from '../lib/declared.js'
import { statusIs, type RowContext, type RowModule, type RowSpec } from '../lib/row.js'

const NOTE = { title: 'A note', body: 'Nothing in it refers to anything.' }
const NOTES = { notes: { schema: { type: 'object', properties: { title: { type: 'string', maxLength: 200 }, body: { type: 'string', maxLength: 2000 } }, required: ['title'] } } }
/** A collection with rules: only public posts are listed and read. */
const POSTS = {
  posts: {
    schema: { type: 'object', properties: { text: { type: 'string', maxLength: 2000 }, public: { type: 'boolean' } }, required: ['text'] },
    rules: { list: 'public = true', view: 'public = true', create: '', update: '', delete: '' }
  }
}

/**
 * Reads that walk the notes (a page, a search with its count, a GraphQL page), answered by both servers
 * before the measured requests: what V8 makes of node's own code depends on what a process ran first
 * (bench/README.md, "One process is one draw"), and a server in use has answered lists.
 */
const LISTS: SetupStep[] = [
  { method: 'GET', url: '/notes?limit=10' },
  { method: 'GET', url: '/notes?q=note&count=true&limit=5' },
  { method: 'POST', url: '/graphql', body: { query: '{ notes(first: 5) { totalCount nodes { id title } } }' } }
]

const NOTES_SETUP: SetupStep[] = [{ seed: { collection: 'notes', count: 1000, record: { title: 'Note {i}', body: NOTE.body } } }, ...LISTS]

const PLAIN = 'rqs, the collection alone'
const FEATURED = 'rqs, references, rules and a webhook on other collections'

export function featureRows (ctx: RowContext): RowModule {
  const { settings } = ctx
  const specs = {
    'notes-plain': async () => await declaredSpec(ctx.declared, { label: 'rqs-notes-plain', declaration: { collections: NOTES }, store: 'memory', setup: NOTES_SETUP }),
    'notes-featured': async () => await declaredSpec(ctx.declared, {
      label: 'rqs-notes-featured',
      declaration: { collections: { ...NOTES, ...LIBRARY.collections, ...POSTS } },
      store: 'memory',
      options: { RQS_WEBHOOKS: 'true', RQS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' },
      setup: [
        ...NOTES_SETUP,
        ...librarySetup(100),
        { seed: { collection: 'posts', count: 100, record: { text: 'Post {i}', public: true } } },
        // Registered after the seeding, so it has nothing to deliver (a webhook gets the changes made after it).
        { method: 'POST', url: '/webhooks', body: { url: 'http://127.0.0.1:9/hook', events: ['books.*', 'authors.*'] } }
      ]
    })
  }
  const warmSec = settings.quick ? 0 : settings.warmSec
  const row = (id: string, what: string, request: { method: string, path: string, body?: string, headers?: Record<string, string> }, status: number): RowSpec => {
    const title = `${what} beside unused features`
    return {
      id,
      group: 'features-off',
      title,
      servers: [],
      run: async () => await compare({ id, title, goal: { against: PLAIN, min: 0.97, text: '≤ 3 % dearer (≥ 0.97×)' } }, [
        freshHttpContender(FEATURED, 'target', specs['notes-featured'], request, settings.connections, warmSec, statusIs(status)),
        freshHttpContender(PLAIN, 'baseline', specs['notes-plain'], request, settings.connections, warmSec, statusIs(status))
      ], settings)
    }
  }
  return {
    recipes: {},
    rows: [
      row('features-off-get', 'GET /notes/1', { method: 'GET', path: '/notes/1' }, 200),
      row('features-off-post', 'POST /notes', { method: 'POST', path: '/notes', body: JSON.stringify(NOTE), headers: { 'content-type': 'application/json' } }, 201)
    ]
  }
}
