import Negotiator from 'negotiator'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { negotiateLanguage, type Language } from '../language.js'
import { MESSAGES } from '../messages/index.js'
import { appendVary, AppError } from '../problem.js'
import { methodNotAllowedProblem, problemErrorHandler } from './handler.js'
import { CATALOGUE, ERROR_CODES, ERRORS_PATH, isErrorCode, type ErrorCode } from './catalogue.js'
import { routeOtherMethods } from '../method-not-allowed.js'

const EntrySchema = Type.Object({
  code: Type.String(),
  status: Type.Integer(),
  title: Type.String(),
  message: Type.String(),
  description: Type.String()
}, { additionalProperties: false })

const MEDIA_TYPES = ['application/json', 'text/html']

/**
 * The served error catalogue: `GET /errors` and `GET /errors/{code}`, the
 * targets of every problem's `type` and `help` links. Browsers (Accept
 * preferring text/html) get a page, everything else JSON; titles and messages
 * follow Accept-Language like the problems themselves.
 */
export async function errorCatalogueRoutes (app: FastifyInstance): Promise<void> {
  app.setErrorHandler(problemErrorHandler())

  app.get(ERRORS_PATH, { schema: { response: { 200: Type.Object({ errors: Type.Array(EntrySchema) }) } } }, async (request, reply) => {
    const language = prepare(request, reply)
    const entries = ERROR_CODES.map((code) => entryFor(code, language))
    if (wantsHtml(request)) return reply.type('text/html; charset=utf-8').send(listPage(entries, language))
    return { errors: entries }
  })

  app.get<{ Params: { code: string } }>(`${ERRORS_PATH}/:code`, { schema: { response: { 200: EntrySchema } } }, async (request, reply) => {
    const { code } = request.params
    if (!isErrorCode(code)) throw new AppError('UNKNOWN_ERROR_CODE', `The catalogue has no code "${code.slice(0, 64)}"; GET ${ERRORS_PATH} lists them all`)
    const language = prepare(request, reply)
    const entry = entryFor(code, language)
    if (wantsHtml(request)) return reply.type('text/html; charset=utf-8').send(entryPage(entry, language))
    return entry
  })

  routeOtherMethods(app, ERRORS_PATH, ['GET'], methodNotAllowedProblem)
  routeOtherMethods(app, `${ERRORS_PATH}/:code`, ['GET'], methodNotAllowedProblem)
}

interface Entry {
  code: ErrorCode
  status: number
  title: string
  message: string
  description: string
}

function entryFor (code: ErrorCode, language: Language): Entry {
  const texts = MESSAGES[language][code]
  return { code, status: CATALOGUE[code].status, title: texts.title, message: texts.message, description: CATALOGUE[code].description }
}

function prepare (request: FastifyRequest, reply: FastifyReply): Language {
  const language = negotiateLanguage(request.headers['accept-language'])
  appendVary(reply, 'Accept')
  appendVary(reply, 'Accept-Language')
  reply.header('content-language', language)
  return language
}

function wantsHtml (request: FastifyRequest): boolean {
  const accept = request.headers.accept
  if (accept === undefined) return false
  return new Negotiator({ headers: { accept } }).mediaType(MEDIA_TYPES) === 'text/html'
}

const HEADINGS: Record<Language, { catalogue: string, status: string, message: string, all: string }> = {
  en: { catalogue: 'Error catalogue', status: 'HTTP status', message: 'Message', all: 'All error codes' },
  de: { catalogue: 'Fehlerkatalog', status: 'HTTP-Status', message: 'Meldung', all: 'Alle Fehlercodes' }
}

function entryPage (entry: Entry, language: Language): string {
  const h = HEADINGS[language]
  return page(language, `${entry.code} — ${entry.title}`, `
<h1><code>${escapeHtml(entry.code)}</code> — ${escapeHtml(entry.title)}</h1>
<dl>
<dt>${h.status}</dt><dd>${entry.status}</dd>
<dt>${h.message}</dt><dd>${escapeHtml(entry.message)}</dd>
</dl>
<p lang="en">${escapeHtml(entry.description)}</p>
<p><a href="${ERRORS_PATH}">${h.all}</a></p>`)
}

function listPage (entries: Entry[], language: Language): string {
  const h = HEADINGS[language]
  const rows = entries.map((e) => `<tr><td><a href="${ERRORS_PATH}/${e.code}"><code>${e.code}</code></a></td><td>${e.status}</td><td>${escapeHtml(e.title)}</td></tr>`).join('\n')
  return page(language, h.catalogue, `<h1>${h.catalogue}</h1>\n<table>\n<tr><th>Code</th><th>${h.status}</th><th></th></tr>\n${rows}\n</table>`)
}

function page (language: Language, title: string, body: string): string {
  return `<!doctype html>
<html lang="${language}">
<head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}td,th{text-align:left;padding:.2rem .6rem}</style>
</head>
<body>${body}
</body>
</html>
`
}

function escapeHtml (text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}
