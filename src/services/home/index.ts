import Negotiator from 'negotiator'
import type { FastifyInstance } from 'fastify'
import { renderLanding } from './landing.js'

/** One entry of the API's directory: where a client finds a service (spec, Versioning rule 4). */
export interface DirectoryLink {
  rel: string
  href: string
  title: string
  /** Media type of what the link points to. */
  type?: string
}

export interface HomeOptions {
  name: string
  version: string
  links: readonly DirectoryLink[]
}

const HTML = 'text/html'
const TYPES = ['application/json', HTML]

/**
 * GET / — the entry point. Clients follow links from here instead of
 * hard-coding URIs; JSON clients get the directory, browsers a landing page.
 * `Link` headers (RFC 8288) carry the same directory for clients that only
 * read headers.
 */
export async function homeService (app: FastifyInstance, opts: HomeOptions): Promise<void> {
  const body = JSON.stringify({
    name: opts.name,
    version: opts.version,
    links: Object.fromEntries(opts.links.map((l) => [l.rel, { href: l.href, title: l.title, ...(l.type === undefined ? {} : { type: l.type }) }]))
  })
  const html = renderLanding(opts)
  const linkHeader = opts.links.map((l) => `<${l.href}>; rel="${l.rel}"${l.type === undefined ? '' : `; type="${l.type}"`}`).join(', ')

  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    reply.header('vary', 'Accept').header('link', linkHeader)
    // JSON (and the vendor types) unless the client prefers HTML, as browsers do.
    const accept = request.headers.accept
    const wantsHtml = accept !== undefined && new Negotiator({ headers: { accept } }).mediaType(TYPES) === HTML
    if (wantsHtml) return reply.type('text/html; charset=utf-8').send(html)
    return reply.type('application/json; charset=utf-8').send(body)
  })
}
