import { fileURLToPath } from 'node:url'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { VersioningConfig } from '../../config.js'
import { vendorType } from '../../http/rest/index.js'
import { declareRoutes } from '../../http/routes/index.js'
import type { DirectoryLink, ServiceDescriptor } from '../types.js'
import { APP_NOT_BUILT_PAGE, APP_PATH, appPage, builtScript } from './page.js'
import { WEBHOOKS_VIEW, type AppCollection, type AppPageConfig } from './page-config.js'
import type { ServedCollection } from '../../data/collection.js'
import { sortKeys } from '../../records/index.js'

/** Where scripts/build-app.ts writes the bundle, the shared stylesheet and the favicon (from src/ and dist/ alike). */
export const DEFAULT_APP_DIR = fileURLToPath(new URL('../../../dist/app', import.meta.url))

export interface AppPagesOptions {
  /** The services' links in the entry point's directory: where the page finds students, addresses and events. */
  directory: readonly DirectoryLink[]
  versioning: VersioningConfig
  /** The collections the server's user declared, each shown in a view built from its schema. */
  collections?: readonly AppCollection[]
  /** Student ids follow the spec's count rule (`--student-ids count`, the default): the page warns before a create replaces a record. */
  countIds?: boolean
  /** The built files; default dist/app of this package. */
  dir?: string
}

/** Hashed names (app-<hash>.js) never change content: a year, immutable. Everything else is revalidated. */
const HASHED = /-[A-Z0-9]{8}\.js(\.br|\.gz)?$/
const IMMUTABLE = 'public, max-age=31536000, immutable'

/**
 * The web application at /app/: one HTML page (rendered here, never cached
 * without revalidation) and the files the build wrote, among them the
 * stylesheet and favicon every HTML page shares.
 */
export async function appPages (app: FastifyInstance, opts: AppPagesOptions): Promise<void> {
  // Pages and files for people; the API calls the page makes carry their own token.
  declareRoutes(app, { service: 'app', access: 'public' })
  const dir = opts.dir ?? DEFAULT_APP_DIR
  const script = builtScript(dir)
  if (script === undefined) {
    app.log.warn({ dir }, 'web application bundle not found: /app/ answers 503 until `npm run build` has run')
    app.get(APP_PATH, { schema: { hide: true } }, (_request, reply) => { void reply.code(503).type('text/html; charset=utf-8').send(APP_NOT_BUILT_PAGE) })
    return
  }

  let page: string | undefined
  const sendPage = (_request: FastifyRequest, reply: FastifyReply): void => {
    page ??= appPage(pageConfig(opts.directory, opts.versioning, opts.collections, opts.countIds), script)
    void reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page)
  }
  app.get(APP_PATH, { schema: { hide: true } }, sendPage)
  app.get(`${APP_PATH}index.html`, { schema: { hide: true } }, sendPage)
  // Each view has an address of its own (/app/students?sort=-age&age[gte]=18): the page reads the rest from the URL.
  // Collection names have no dot, so they never shadow a built file.
  const views = [...OWN_VIEWS, ...(opts.collections ?? []).map((c) => c.name)]
  // (The server ignores a trailing slash, so /app/students/ is this route too.)
  for (const view of new Set(views)) {
    app.get(`${APP_PATH}${view}`, { schema: { hide: true } }, sendPage)
    // A record's own page (/app/books/7): a deep link the page opens at that record.
    app.get(`${APP_PATH}${view}/:id`, { schema: { hide: true } }, sendPage)
  }
  // The webhooks page, where the server has webhooks (the page shows it to tokens the API lets in).
  if (opts.directory.some((link) => link.rel === 'webhooks')) app.get(`${APP_PATH}${WEBHOOKS_VIEW}`, { schema: { hide: true } }, sendPage)

  await app.register(fastifyStatic, {
    root: dir,
    prefix: APP_PATH,
    decorateReply: false,
    index: false,
    preCompressed: true,
    dotfiles: 'deny',
    allowedPath: (path) => path !== '/manifest.json',
    cacheControl: false,
    setHeaders: (reply, path) => { reply.header('cache-control', HASHED.test(path) ? IMMUTABLE : 'no-cache') }
  })
}

/** Where the page finds each collection, from the directory the services filled in. */
export function pageConfig (directory: readonly DirectoryLink[], versioning: VersioningConfig, collections: readonly AppCollection[] = [], countIds = false): AppPageConfig {
  const href = (rel: string): string | undefined => directory.find((link) => link.rel === rel)?.href
  const config: AppPageConfig = {}
  const students = href('students')
  // The app speaks students v2: by Accept at the plain base, else by URI.
  if (students !== undefined) {
    if (versioning.mediaType) config.students = { url: students, accept: vendorType(versioning.vendor, 2) }
    else if (versioning.uri) config.students = { url: `/v2${students === '/' ? '' : students}`, accept: 'application/json' }
  }
  if (config.students !== undefined && countIds) config.students.countIds = true
  const addresses = href('addresses')
  if (addresses !== undefined) config.addresses = { url: addresses, accept: 'application/json' }
  const events = href('events')
  if (events !== undefined) config.events = events
  const webhooks = href('webhooks')
  if (webhooks !== undefined) config.webhooks = webhooks
  if (collections.length > 0) config.collections = [...collections]
  const listing = href('collections')
  if (listing !== undefined) config.collectionsListing = listing
  return config
}

/**
 * The collections the page has hand-made views of (web/app/resources.ts),
 * each an entry of the page's configuration: every other collection is
 * shown by a view built from its schema.
 */
const OWN_VIEWS = ['students', 'addresses'] as const satisfies ReadonlyArray<keyof AppPageConfig>

/**
 * The declared collections the page shows: every collection of a running
 * service besides the built-in ones (which have views of their own), where
 * the directory says it is, with its record's fields (the id aside).
 */
export function declaredCollections (collections: readonly ServedCollection[], directory: readonly DirectoryLink[]): AppCollection[] {
  const out: AppCollection[] = []
  for (const collection of collections) {
    if ((OWN_VIEWS as readonly string[]).includes(collection.name)) continue
    const url = directory.find((link) => link.rel === collection.name)?.href
    if (url === undefined) continue
    // The declaration's schema: its titles and the limits, values and hints the view's messages state.
    const schema = (collection.declared ?? collection.schema) as unknown as AppCollection['schema']
    const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([key]) => key !== 'id'))
    // The view is titled by the collection's name (the schema's `title` names one record).
    // The sort keys are the server's own (its query model), so the view offers no sort the list refuses.
    const model = collection.model as ServedCollection['model'] | undefined
    // (A collection described without a query model leaves the page the server's rule: the id and the required fields.)
    const description = (schema as { description?: unknown }).description
    out.push({ name: collection.name, url, ...(typeof description === 'string' ? { description } : {}), ...(collection.label === undefined ? {} : { label: collection.label }), schema: { properties, required: (schema.required ?? []).filter((key) => key !== 'id') }, ...(model === undefined ? {} : { sort: sortKeys(model) }) })
  }
  return out
}

/** The web application: a page for people, over the REST services of the same server. */
export const appService: ServiceDescriptor = {
  name: 'app',
  versions: [],
  // Its pages are for students and addresses: with neither served it has nothing to show.
  enabled: () => true,
  consumes: OWN_VIEWS,
  links: () => [{ rel: 'app', href: APP_PATH, title: 'Web application: browse and edit the records of every collection', type: 'text/html' }],
  tags: [],
  paths: () => [{ path: APP_PATH.slice(0, -1) }],
  register: async (app, { config, stores, links, collections }) => {
    // The id rule as the stores keep the students (--student-ids).
    const countIds = stores.collections.get('students')?.declaration.ids === 'count'
    await app.register(appPages, { directory: links, versioning: config.versioning, collections: declaredCollections(collections, links), countIds })
  }
}
