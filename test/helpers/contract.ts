import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import ajvFormats from 'ajv-formats'
import type { RouteOptions } from 'fastify'

/**
 * The API contract test's two halves: a recorder that sees every route a
 * server adds and every answer it sends (on the wire, as a client gets it),
 * and a checker that holds each answer against the server's own
 * /openapi.json — status, media type, body, headers — with ajv (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1).
 */

export interface Exchange {
  method: string
  url: string
  requestHeaders: Record<string, string | string[] | undefined>
  status: number
  /** Lower-case names. */
  headers: Record<string, string>
  /** Decoded (Content-Encoding undone). */
  body: Buffer
}

export interface RecordedRoute {
  url: string
  methods: string[]
}

/** Collects routes and answers of a server started with `startServer(…, …, { contract: recorder })`. */
export class ContractRecorder {
  readonly routes: RecordedRoute[] = []
  readonly exchanges: Exchange[] = []
  readonly onRoute = (route: RouteOptions): void => {
    this.routes.push({ url: route.url, methods: ([] as string[]).concat(route.method) })
  }
}

/** Wraps each response of a Node HTTP server to keep a copy of what it sends. */
export function recordExchanges (server: Server, recorder: ContractRecorder): void {
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    let headArgs: OutgoingHttpHeaders | undefined
    const writeHead = res.writeHead.bind(res)
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      const last = rest[rest.length - 1]
      if (typeof last === 'object' && last !== null && !Array.isArray(last)) headArgs = last as OutgoingHttpHeaders
      return (writeHead as (...args: unknown[]) => ServerResponse)(status, ...rest)
    }) as typeof res.writeHead
    const write = res.write.bind(res)
    const end = res.end.bind(res)
    const keep = (chunk: unknown): void => {
      if (typeof chunk === 'string') chunks.push(Buffer.from(chunk))
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk))
    }
    res.write = ((chunk: unknown, ...rest: unknown[]) => { keep(chunk); return (write as (...args: unknown[]) => boolean)(chunk, ...rest) }) as typeof res.write
    res.end = ((chunk?: unknown, ...rest: unknown[]) => { if (typeof chunk !== 'function') keep(chunk); return (end as (...args: unknown[]) => ServerResponse)(chunk, ...rest) }) as typeof res.end
    res.on('finish', () => {
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries({ ...res.getHeaders(), ...headArgs })) {
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
      }
      recorder.exchanges.push({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        requestHeaders: { ...req.headers },
        status: res.statusCode,
        headers,
        body: decode(Buffer.concat(chunks), headers['content-encoding'])
      })
    })
  })
}

function decode (body: Buffer, encoding: string | undefined): Buffer {
  if (body.length === 0) return body
  if (encoding === 'br') return brotliDecompressSync(body)
  if (encoding === 'gzip') return gunzipSync(body)
  if (encoding === 'deflate') return inflateSync(body)
  return body
}

/** Headers that, when a response carries them, the document must name for that response. */
const WATCHED_HEADERS = ['etag', 'location', 'link', 'retry-after', 'allow', 'deprecation', 'sunset', 'content-language', 'x-request-id', 'vary']

/** What the server serves beside the API: people's pages and files, left out of the document on purpose. */
export const NOT_API: ReadonlyArray<{ prefix: string, why: string }> = [
  { prefix: '/docs/', why: 'the documents (Markdown, Swagger UI and its files) are pages for people' },
  { prefix: '/graphiql/', why: 'the files of the GraphiQL bundle (the page itself, /graphiql, is documented)' },
  { prefix: '/app/', why: 'the web application (its page and bundle) is for people; it uses the documented API' },
]

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

type Json = Record<string, any>

interface Route {
  template: string
  pattern: RegExp
  item: Json
}

export class ContractChecker {
  readonly #doc: Json
  readonly #ajv: Ajv2020
  readonly #routes: Route[]
  readonly #compiled = new Map<unknown, ValidateFunction>()

  constructor (doc: Json) {
    // Component references resolve against the document, which ajv knows under one id.
    const base = 'https://rqs.test/openapi.json'
    this.#doc = JSON.parse(JSON.stringify(doc).replaceAll('"#/components/', `"${base}#/components/`))
    this.#ajv = new Ajv2020({ strict: false, allErrors: true })
    ajvFormats.default(this.#ajv) // the CommonJS module's function, typed as its `default`
    this.#ajv.addSchema({ $id: base, components: this.#doc.components })
    this.#routes = Object.entries<Json>(this.#doc.paths)
      .map(([template, item]) => ({ template, item, pattern: templatePattern(template) }))
      // Literal paths before templated ones: /graphql/schema.graphql before /students/{id}.
      .sort((a, b) => (a.template.split('{').length - b.template.split('{').length) || b.template.length - a.template.length)
  }

  /** True for answers outside the API (NOT_API). */
  static skipped (url: string): boolean {
    const path = pathOf(url)
    return NOT_API.some((n) => path.startsWith(n.prefix) || `${path}/` === n.prefix)
  }

  /** Every way the answer disagrees with the document (empty when it agrees). */
  check (x: Exchange): string[] {
    const where = `${x.method} ${x.url} → ${x.status}`
    const path = pathOf(x.url)
    const route = this.#routes.find((r) => r.pattern.test(path))
    if (route === undefined) {
      // Paths the document does not list are 404 (or 406 under a service) in one of the document's error shapes.
      if (x.status !== 404 && x.status !== 406) return [`${where}: the path is not in the document`]
      return this.#fitsSomeError(x, this.#errorSchemas(Object.values(this.#doc.paths)), where)
    }
    const method = x.method.toLowerCase()
    const op: Json | undefined = route.item[method] ?? (method === 'head' ? route.item.get : undefined)
    if (op === undefined) return this.#checkUndocumentedMethod(x, route, where)
    const responses: Json = op.responses
    const response: Json | undefined = responses[String(x.status)] ?? responses[`${String(x.status)[0]}XX`] ?? responses.default
    if (response === undefined) return [`${where}: status ${x.status} is not documented for ${op.operationId as string} (${Object.keys(responses).join(', ')})`]
    return [...this.#checkHeaders(x, response, where), ...this.#checkBody(x, response, where)]
  }

  /** Router paths (with their methods) that the document does not describe. */
  uncovered (routes: readonly RecordedRoute[]): string[] {
    const missing: string[] = []
    for (const r of routes) {
      const template = r.url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{path}').replace(/(.)\/$/, '$1')
      if (ContractChecker.skipped(r.url.replace(/\*$/, 'x'))) continue
      const item = this.#doc.paths[template]
      if (item === undefined) { missing.push(`${template} (${r.methods.join(', ')})`); continue }
      const documented = METHODS.filter((m) => item[m] !== undefined)
      if (documented.length === 0) missing.push(`${template}: no operation`)
    }
    return [...new Set(missing)]
  }

  /** A method the path does not list: 405 with Allow (or 204 to OPTIONS) in one of the path's error shapes. */
  #checkUndocumentedMethod (x: Exchange, route: Route, where: string): string[] {
    const documented = METHODS.filter((m) => route.item[m] !== undefined).map((m) => m.toUpperCase())
    const problems: string[] = []
    const allow = x.headers.allow
    if (x.status !== 405 && !(x.method === 'OPTIONS' && x.status === 204)) return [`${where}: ${x.method} is not documented for ${route.template}, so only 405 (or 204 to OPTIONS) may answer it`]
    if (allow === undefined) return [`${where}: no Allow header`]
    for (const m of allow.split(',').map((s) => s.trim())) {
      if (m !== 'HEAD' && m !== 'OPTIONS' && !documented.includes(m)) problems.push(`${where}: Allow lists ${m}, which ${route.template} does not document`)
    }
    if (x.status === 204) return problems
    // The path's own error shapes, else those of the whole document (a path with no error of its own).
    const own = this.#errorSchemas([route.item])
    const type = mediaType(x.headers['content-type'])
    return [...problems, ...this.#fitsSomeError(x, own.has(type) ? own : this.#errorSchemas(Object.values(this.#doc.paths)), where)]
  }

  /** The documented 4xx body schemas of some path items, by media type. */
  #errorSchemas (items: Json[]): Map<string, unknown[]> {
    const byType = new Map<string, unknown[]>()
    for (const item of items) {
      for (const m of METHODS) {
        for (const [status, response] of Object.entries<Json>(item[m]?.responses ?? {})) {
          if (!status.startsWith('4')) continue
          for (const [type, media] of Object.entries<Json>(response.content ?? {})) byType.set(type, [...(byType.get(type) ?? []), media.schema])
        }
      }
    }
    return byType
  }

  #fitsSomeError (x: Exchange, byType: Map<string, unknown[]>, where: string): string[] {
    const type = mediaType(x.headers['content-type'])
    const schemas = byType.get(type)
    if (schemas === undefined) return [`${where}: no error is documented as ${type}`]
    const body = parseJson(x.body)
    return schemas.some((s) => this.#validator(s)(body)) ? [] : [`${where}: the body fits no documented error schema for ${type}: ${x.body.toString('utf8').slice(0, 200)}`]
  }

  #checkHeaders (x: Exchange, response: Json, where: string): string[] {
    const problems: string[] = []
    const documented = new Map<string, Json>()
    for (const [name, header] of Object.entries<Json>(response.headers ?? {})) documented.set(name.toLowerCase(), this.#resolve(header))
    for (const name of WATCHED_HEADERS) {
      if (x.headers[name] !== undefined && !documented.has(name)) problems.push(`${where}: sends ${name}, which is not documented for this answer`)
    }
    for (const [name, header] of documented) {
      const value = x.headers[name]
      if (value === undefined) {
        if (header.required === true) problems.push(`${where}: the required header ${name} is missing`)
        continue
      }
      if (header.schema !== undefined && !this.#validator(header.schema)(value)) problems.push(`${where}: header ${name}: ${JSON.stringify(value)} does not fit its schema`)
    }
    return problems
  }

  #checkBody (x: Exchange, response: Json, where: string): string[] {
    const content: Json | undefined = response.content
    const empty = x.body.length === 0
    if (content === undefined) return empty ? [] : [`${where}: a body where the document says there is none`]
    if (x.method === 'HEAD' || x.status === 304) return []
    const type = mediaType(x.headers['content-type'])
    const media: Json | undefined = content[type] ?? content[`${type.split('/')[0]}/*`] ?? content['*/*']
    if (media === undefined) return [`${where}: Content-Type ${type} is not documented (${Object.keys(content).join(', ')})`]
    if (!/[/+]json$/.test(type)) return empty ? [`${where}: an empty ${type} body`] : []
    const body = parseJson(x.body)
    if (body === undefined) return [`${where}: the ${type} body is not JSON`]
    const validate = this.#validator(media.schema)
    if (validate(body)) return []
    return [`${where}: the body does not fit the ${type} schema: ${this.#ajv.errorsText(validate.errors)}; body ${x.body.toString('utf8').slice(0, 300)}`]
  }

  #validator (schema: unknown): ValidateFunction {
    let validate = this.#compiled.get(schema)
    if (validate === undefined) {
      validate = this.#ajv.compile(schema as object)
      this.#compiled.set(schema, validate)
    }
    return validate
  }

  #resolve (object: Json): Json {
    const ref: unknown = object.$ref
    if (typeof ref !== 'string') return object
    const pointer = ref.slice(ref.indexOf('#') + 2).split('/')
    return pointer.reduce<Json>((node, key) => node[key], this.#doc)
  }
}

function templatePattern (template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => part === '{path}' ? '(.+)' : part.startsWith('{') ? '([^/]+)' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('')
  return new RegExp(`^${source}$`)
}

function pathOf (url: string): string {
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
}

function mediaType (contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
}

function parseJson (body: Buffer): unknown {
  try { return JSON.parse(body.toString('utf8')) } catch { return undefined }
}
