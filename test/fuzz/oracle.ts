import { errorCatalogue, SERVICES } from '../../src/services/index.js'

/** Every code of a server running every built-in service. */
const ERROR_CODES = errorCatalogue(SERVICES).codes
import { GRAPHQL_CODES as GraphQLCode } from '../../src/services/albums/limits.js'
import type { FuzzRequest } from './requests.js'
import type { FuzzResponse } from './target.js'

/**
 * What every answer to a hostile request must be (issue 10): never a 5xx,
 * never an internal message, the error in the shape of the service the path
 * belongs to, and nothing read from outside the static folders. Returns the
 * broken rules (empty when the answer is fine).
 */
export function judge (request: FuzzRequest, response: FuzzResponse): string[] {
  const problems: string[] = []
  const { status, headers, text } = response
  if (status >= 500) problems.push(`status ${status}`)
  if (status < 100) problems.push(`no status (${status})`)
  if (typeof headers['x-request-id'] !== 'string') problems.push('no X-Request-Id')
  problems.push(...leaks(request, response))
  if (status >= 400 && request.method !== 'HEAD') problems.push(...errorShape(request, response))
  if (text.length > 0 && isJsonType(headers['content-type']) && request.method !== 'HEAD' && parse(text) === undefined) {
    problems.push('a JSON content type with a body that is not JSON')
  }
  return problems
}

/**
 * Texts that only an internal fault puts in an answer (unless the request
 * itself carried them). JSON.parse's own message ("Unexpected token ... at
 * position") is not one: MALFORMED_JSON documents that its detail carries it.
 */
const INTERNAL_MARKERS = [
  'Maximum call stack', 'Cannot read propert', 'Cannot set propert', 'is not a function', 'is not defined', 'is not iterable',
  'undefined is not', 'null is not', 'at Object.', 'at async ', 'node:internal', 'node_modules', 'TypeError', 'RangeError',
  'ReferenceError', 'FST_ERR', 'SQLITE_', 'SQLSTATE', 'ECONNREFUSED',
  'Invalid string length', 'out of memory'
]

/** Files outside the served folders: their contents must never come back. */
const OUTSIDE_SENTINELS = ['root:x:0:0', '"devDependencies"', 'assembleServer', '"compilerOptions"', 'gitdir:', 'repositoryformatversion']

function leaks (request: FuzzRequest, response: FuzzResponse): string[] {
  const found: string[] = []
  const sent = `${request.path}\n${JSON.stringify(request.headers)}\n${request.body?.toString('utf8') ?? ''}`
  if (response.status >= 400) {
    for (const marker of INTERNAL_MARKERS) {
      if (response.text.includes(marker) && !sent.includes(marker)) found.push(`internal text "${marker}" in the answer`)
    }
  }
  for (const sentinel of OUTSIDE_SENTINELS) {
    if (response.text.includes(sentinel)) found.push(`content from outside the served folders ("${sentinel}")`)
  }
  return found
}

type Family = 'students' | 'addresses' | 'graphql' | 'other'

/** Which service answers a path (the mount rules of src/server.ts, default configuration). */
export function familyOf (path: string): Family {
  const pathOnly = path.split('?')[0] as string
  if (/^\/(v[12]\/)?students(\/|$)/.test(pathOnly)) return 'students'
  if (/^\/(v[12]\/)?addresses(\/|$)/.test(pathOnly)) return 'addresses'
  if (pathOnly === '/graphql' || pathOnly === '/graphql/') return 'graphql'
  return 'other'
}

const GRAPHQL_ERROR_CODES = new Set<string>([...Object.values(GraphQLCode), ...ERROR_CODES])

function errorShape (request: FuzzRequest, response: FuzzResponse): string[] {
  const type = String(response.headers['content-type'] ?? '')
  const body = parse(response.text)
  const family = familyOf(request.path)
  if (response.text === '') return [`an empty ${response.status} answer`]
  // Without Accept a student path speaks v1 (the spec's service): always the envelope, except
  // for what node:http refuses before any route sees it (a problem without `instance`).
  const beforeRouting = type.startsWith('application/problem+json') && isObject(body) && body.instance === undefined
  if (family === 'students' && request.headers.accept === undefined && !request.path.startsWith('/v2/') && !beforeRouting) return envelopeShape(body)
  if (type.startsWith('application/problem+json')) return problemShape(body, response)
  if (family === 'graphql' && /^application\/(graphql-response\+)?json/.test(type)) return graphqlShape(body)
  if (family === 'students' && /^application\/(vnd\.rqs\.v1\+)?json/.test(type)) return envelopeShape(body)
  if (family === 'other' && request.path.startsWith('/errors') && type.startsWith('text/html')) return [] // the catalogue's own pages for browsers
  // A browser (Accept naming text/html) gets a 404 as a page in the site's layout; every other client the problem.
  if (response.status === 404 && type.startsWith('text/html') && /text\/html/i.test(String(request.headers.accept ?? ''))) {
    return response.text.includes('404') ? [] : ['a 404 page that does not say 404']
  }
  return [`a ${response.status} answer as ${type || 'no content type'} for a ${family} path`]
}

/** The spec's v1 envelope: exactly {isSuccessful: false, body: string}. */
function envelopeShape (body: unknown): string[] {
  if (!isObject(body)) return ['envelope: not an object']
  const keys = Object.keys(body).sort().join()
  if (keys !== 'body,isSuccessful' || body.isSuccessful !== false || typeof body.body !== 'string' || body.body === '') {
    return [`envelope: not {isSuccessful:false, body:string} but ${JSON.stringify(body).slice(0, 200)}`]
  }
  return []
}

/** RFC 9457 with the catalogue: links relative (no --public-url), codes known, traceId = X-Request-Id. */
function problemShape (body: unknown, response: FuzzResponse): string[] {
  if (!isObject(body)) return ['problem: not an object']
  const problems: string[] = []
  const code = typeof body.type === 'string' ? body.type.replace(/^\/errors\//, '') : ''
  if (typeof body.type !== 'string' || !body.type.startsWith('/errors/') || !ERROR_CODES.includes(code as never)) problems.push(`problem: type ${String(body.type)}`)
  if (body.status !== response.status) problems.push(`problem: status ${String(body.status)} on a ${response.status}`)
  for (const member of ['title', 'detail']) if (typeof body[member] !== 'string') problems.push(`problem: no ${member}`)
  if (body.instance !== undefined && typeof body.instance !== 'string') problems.push('problem: instance')
  if (body.traceId !== response.headers['x-request-id']) problems.push('problem: traceId is not the X-Request-Id')
  if (!Array.isArray(body.errors) || body.errors.length === 0) {
    problems.push('problem: no errors[]')
  } else {
    for (const entry of body.errors as unknown[]) {
      if (!isObject(entry) || typeof entry.error !== 'string' || !ERROR_CODES.includes(entry.error as never)) { problems.push(`problem: errors[] entry ${JSON.stringify(entry)}`); continue }
      if (typeof entry.message !== 'string' || typeof entry.detail !== 'string' || entry.help !== `/errors/${entry.error}`) problems.push(`problem: errors[] entry ${JSON.stringify(entry)}`)
    }
  }
  return problems
}

/** GraphQL over HTTP: {errors: [{message, extensions: {code}}]} with a code this service defines. */
function graphqlShape (body: unknown): string[] {
  if (!isObject(body) || !Array.isArray(body.errors) || body.errors.length === 0) return [`graphql: not {errors: [...]} but ${JSON.stringify(body)?.slice(0, 200)}`]
  const problems: string[] = []
  for (const error of body.errors as unknown[]) {
    if (!isObject(error) || typeof error.message !== 'string' || !isObject(error.extensions) || !GRAPHQL_ERROR_CODES.has(String(error.extensions.code))) {
      problems.push(`graphql: error ${JSON.stringify(error).slice(0, 200)}`)
    }
  }
  return problems
}

/**
 * The same rules for answers read off a raw socket (possibly several, when
 * requests were pipelined): no 5xx, no internal text, nothing from outside
 * the served folders, problems well-formed, and at least one answer.
 */
export function judgeRaw (sent: Buffer, text: string): string[] {
  const answers = splitAnswers(text)
  if (answers.length === 0) return [`no answer at all: ${JSON.stringify(text.slice(0, 200))}`]
  const request: FuzzRequest = { method: 'RAW', path: '', headers: {}, body: sent }
  const problems: string[] = []
  for (const answer of answers) {
    problems.push(...leaks(request, answer))
    if (answer.status >= 500) problems.push(`status ${answer.status}`)
    if (String(answer.headers['content-type']).startsWith('application/problem+json')) problems.push(...problemShape(parse(answer.text), answer))
  }
  return problems
}

/** Answers in a byte stream, by Content-Length (rqs never answers these chunked). */
function splitAnswers (text: string): FuzzResponse[] {
  const answers: FuzzResponse[] = []
  let rest = text
  while (rest.startsWith('HTTP/1.')) {
    const end = rest.indexOf('\r\n\r\n')
    if (end < 0) break
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n')
    const headers: Record<string, string> = {}
    for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim()
    const length = Number(headers['content-length'] ?? rest.length)
    const body = Buffer.from(rest.slice(end + 4), 'latin1').subarray(0, length)
    answers.push({ status: Number(statusLine.split(' ')[1]), headers, text: body.toString('utf8') })
    rest = rest.slice(end + 4 + Buffer.from(body).toString('latin1').length)
  }
  return answers
}

function isJsonType (type: string | undefined): boolean {
  return type !== undefined && /^application\/([\w.+-]*\+)?json/.test(type)
}

function parse (text: string): unknown {
  try { return JSON.parse(text) } catch { return undefined }
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
