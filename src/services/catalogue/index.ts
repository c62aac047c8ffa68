import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import escapeHtml from 'escape-html'
import { MediaTypeChooser } from '../../lib/negotiate.js'
import { appendVary } from '../../lib/vary.js'
import { routeOtherMethods } from '../../http/rest/index.js'
import { declareRoutes } from '../../http/routes/index.js'
import { renderPage, withInlineCode } from '../../http/html/index.js'
import { AppError, catalogueOf, type ErrorCatalogue, ERRORS_PATH, type ErrorCode, problems, negotiateLanguage, type Language } from '../../http/errors/index.js'
import { HTML_PAGE, SERVER_TAG } from '../../http/openapi/index.js'
const EntrySchema = Type.Object({
  code: Type.String(),
  status: Type.Integer(),
  title: Type.String({ description: 'Translated by Accept-Language.' }),
  message: Type.String({ description: 'Translated by Accept-Language.' }),
  description: Type.String({ description: 'When the code is used and what to do, for developers (English).' })
}, { title: 'CatalogueEntry', additionalProperties: false })
const CatalogueSchema = Type.Object({ errors: Type.Array(EntrySchema) }, { title: 'Catalogue', additionalProperties: false })
const CodeParams = Type.Object({ code: Type.String({ description: 'A catalogue code, e.g. `ADDRESS_NOT_FOUND`.', examples: ['VALIDATION_FAILED'] }) })
const tags = [SERVER_TAG]
/** JSON for clients, a page for browsers (Accept preferring text/html); both follow Accept-Language. */
const pageHeaders = { 200: ['Content-Language'] as const }

const pages = new MediaTypeChooser(['application/json', 'text/html'])

/**
 * The served error catalogue: `GET /errors` and `GET /errors/{code}`, the
 * targets of every problem's `type` and `help` links: the codes of this
 * server's catalogue, the core's and its services'. Browsers (Accept
 * preferring text/html) get a page, everything else JSON; titles and messages
 * follow Accept-Language like the problems themselves.
 */
export async function errorCatalogueRoutes (app: FastifyInstance): Promise<void> {
  // Documents every client may read (the targets of every problem's links), the 405s included.
  declareRoutes(app, { service: 'errors', access: 'public' })
  const catalogue = catalogueOf(app)
  app.setErrorHandler(problems.handleError)

  app.get(ERRORS_PATH, {
    schema: {
      operationId: 'listErrorCodes',
      tags,
      summary: 'The error catalogue: every code, its status and meaning',
      'x-rqs': { headers: pageHeaders },
      response: { 200: { description: 'Every code; an HTML page when Accept prefers text/html.', content: { 'application/json': { schema: CatalogueSchema }, 'text/html': HTML_PAGE } } }
    }
  }, async (request, reply) => {
    const language = prepare(request, reply)
    const entries = catalogue.codes.map((code) => entryFor(catalogue, code, language))
    if (wantsHtml(request)) return reply.type('text/html; charset=utf-8').send(listPage(entries, language))
    return { errors: entries }
  })

  app.get<{ Params: { code: string } }>(`${ERRORS_PATH}/:code`, {
    schema: {
      operationId: 'getErrorCode',
      tags,
      summary: 'One code of the error catalogue (the target of problems\' `type` and `help`)',
      params: CodeParams,
      'x-rqs': { errors: ['UNKNOWN_ERROR_CODE'], headers: pageHeaders },
      response: { 200: { description: 'The code\'s entry; an HTML page when Accept prefers text/html.', content: { 'application/json': { schema: EntrySchema }, 'text/html': HTML_PAGE } } }
    }
  }, async (request, reply) => {
    const { code } = request.params
    if (!catalogue.has(code)) throw new AppError('UNKNOWN_ERROR_CODE', `The catalogue has no code "${code.slice(0, 64)}"; GET ${ERRORS_PATH} lists them all`)
    const language = prepare(request, reply)
    const entry = entryFor(catalogue, code, language)
    if (wantsHtml(request)) return reply.type('text/html; charset=utf-8').send(entryPage(entry, language))
    return entry
  })

  routeOtherMethods(app, ERRORS_PATH, ['GET'], problems.methodNotAllowed)
  routeOtherMethods(app, `${ERRORS_PATH}/:code`, ['GET'], problems.methodNotAllowed)
}

interface Entry {
  code: ErrorCode
  status: number
  title: string
  message: string
  description: string
}

function entryFor (catalogue: ErrorCatalogue, code: ErrorCode, language: Language): Entry {
  const { status, description, messages } = catalogue.entry(code)
  return { code, status, title: messages[language].title, message: messages[language].message, description }
}

function prepare (request: FastifyRequest, reply: FastifyReply): Language {
  const language = negotiateLanguage(request.headers['accept-language'])
  appendVary(reply, 'Accept')
  appendVary(reply, 'Accept-Language')
  reply.header('content-language', language)
  return language
}

function wantsHtml (request: FastifyRequest): boolean {
  return pages.prefers(request.headers.accept, 'text/html')
}

const HEADINGS: Record<Language, { catalogue: string, code: string, status: string, title: string, message: string, all: string, order: string }> = {
  en: { catalogue: 'Error catalogue', code: 'Code', status: 'HTTP status', title: 'Title', message: 'Message', all: 'All error codes', order: 'Every code this server answers with, in alphabetical order; open one for its message and what to do.' },
  de: { catalogue: 'Fehlerkatalog', code: 'Code', status: 'HTTP-Status', title: 'Titel', message: 'Meldung', all: 'Alle Fehlercodes', order: 'Alle Codes, mit denen dieser Server antwortet, alphabetisch geordnet; jeder führt zu Meldung und Abhilfe.' }
}

function entryPage (entry: Entry, language: Language): string {
  const h = HEADINGS[language]
  return page(language, `${entry.code} — ${entry.title}`, `
<h1><code>${escapeHtml(entry.code)}</code> — ${escapeHtml(entry.title)}</h1>
<dl>
<dt>${h.status}</dt><dd>${entry.status}</dd>
<dt>${h.message}</dt><dd>${escapeHtml(entry.message)}</dd>
</dl>
<p lang="en">${withInlineCode(entry.description)}</p>
<p><a href="${ERRORS_PATH}">${h.all}</a></p>`)
}

function listPage (entries: Entry[], language: Language): string {
  const h = HEADINGS[language]
  // Alphabetical: a reader arrives with a code from a problem and looks it up; the status is a column of its own.
  const sorted = [...entries].sort((a, b) => a.code < b.code ? -1 : a.code > b.code ? 1 : 0)
  const rows = sorted.map((e) => `<tr><td><a href="${ERRORS_PATH}/${e.code}"><code>${e.code}</code></a></td><td>${e.status}</td><td>${escapeHtml(e.title)}</td></tr>`).join('\n')
  return page(language, h.catalogue, `<h1>${h.catalogue}</h1>
<p>${h.order}</p>
<table>
<thead><tr><th scope="col">${h.code}</th><th scope="col">${h.status}</th><th scope="col">${h.title}</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`)
}

/** A catalogue page in the site's one look (src/http/html/layout.ts). */
function page (language: Language, title: string, body: string): string {
  return renderPage({ title, lang: language, current: ERRORS_PATH, body })
}
