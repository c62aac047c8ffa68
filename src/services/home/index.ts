import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { MediaTypeChooser } from '../../lib/negotiate.js'
import { requestOrigin } from '../../lib/origin.js'
import { appendVary } from '../../lib/vary.js'
import { ERRORS_PATH } from '../../http/errors/index.js'
import { API_DOCS_PATH, OPENAPI_PATH, HTML_PAGE, SERVER_TAG } from '../../http/openapi/index.js'
import { declareRoutes } from '../../http/routes/index.js'
import type { DirectoryLink } from '../types.js'
import { landingPage, type HomeOptions } from './landing.js'

export type { DirectoryLink, HomeOptions }

const HTML = 'text/html'
const pages = new MediaTypeChooser(['application/json', HTML])

const Link = Type.Object({ href: Type.String({ format: 'uri-reference' }), title: Type.String(), type: Type.Optional(Type.String()) }, { title: 'DirectoryLink', additionalProperties: false })
const Directory = Type.Object({
  name: Type.String(),
  version: Type.String(),
  links: Type.Record(Type.String(), Link, { description: 'By relation: self, students, addresses, albums, albums-editor, errors, service-desc, service-doc, help, status.' })
}, { title: 'Directory', additionalProperties: false })

/**
 * GET / — the entry point. Clients follow links from here instead of
 * hard-coding URIs; JSON clients get the directory, browsers a landing page.
 * `Link` headers (RFC 8288) carry the same directory for clients that only
 * read headers.
 */
export async function homeService (app: FastifyInstance, options: HomeOptions): Promise<void> {
  const opts = { ...options, links: directory(options.links) }
  const body = JSON.stringify({
    name: opts.name,
    version: opts.version,
    links: Object.fromEntries(opts.links.map((l) => [l.rel, { href: l.href, title: l.title, ...(l.type === undefined ? {} : { type: l.type }) }]))
  })
  const html = landingPage(opts)
  const linkHeader = opts.links.map((l) => `<${l.href}>; rel="${l.rel}"${l.type === undefined ? '' : `; type="${l.type}"`}`).join(', ')

  declareRoutes(app, { service: 'home', access: 'public' })
  app.get('/', {
    schema: {
      operationId: 'getDirectory',
      tags: [SERVER_TAG],
      summary: 'The entry point: links to every service and document',
      'x-rqs': { headers: { 200: ['Link'] } },
      response: { 200: { description: 'The directory; a landing page when Accept prefers text/html. `Link` carries the same links.', content: { 'application/json': { schema: Directory }, 'text/html': HTML_PAGE } } }
    }
  }, async (request, reply) => {
    appendVary(reply, 'Accept')
    reply.header('link', linkHeader)
    // JSON (and the vendor types) unless the client prefers HTML, as browsers do.
    if (pages.prefers(request.headers.accept, HTML)) return reply.type('text/html; charset=utf-8').send(html(requestOrigin(request.protocol, request.host)))
    return reply.type('application/json; charset=utf-8').send(body)
  })
}

/** The entry point's directory (spec, Versioning rule 4): the services' links among the server's own. */
export function directory (serviceLinks: readonly DirectoryLink[]): DirectoryLink[] {
  return [
    { rel: 'self', href: '/', title: 'This directory', type: 'application/json' },
    ...serviceLinks,
    { rel: 'errors', href: ERRORS_PATH, title: 'Error catalogue', type: 'text/html' },
    { rel: 'service-desc', href: OPENAPI_PATH, title: 'OpenAPI document', type: 'application/openapi+json' },
    { rel: 'service-doc', href: API_DOCS_PATH, title: 'API reference (Swagger UI)', type: 'text/html' },
    { rel: 'help', href: '/docs/', title: 'Documentation: decisions, errors, versioning', type: 'text/html' },
    { rel: 'status', href: '/healthz', title: 'Health check', type: 'application/json' }
  ]
}
