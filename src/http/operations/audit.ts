import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler, onSendHookHandler, RouteOptions } from 'fastify'
import { declared } from '../routes/index.js'
import { freshRequestId } from '../transport/index.js'

const WRITES = new Set(['POST', 'PUT', 'DELETE'])

/** One audit record: what was changed, by whom, and how it ended. Never a body or a token. */
export interface AuditRecord {
  action: 'create' | 'replace' | 'delete'
  /** The service the route declares. */
  service: string
  /** The record's id; for a create, the id it got (undefined when nothing was created). */
  id?: string
  principal: string | null
  /** success (2xx/3xx), refused (4xx: invalid, not found, not permitted, ...) or error (5xx). */
  outcome: 'success' | 'refused' | 'error'
  status: number
  /**
   * An id the server made: the request id (`reqId`) when the server made
   * that, a fresh one when the client chose it with X-Request-Id, which
   * anyone can reuse or forge. Unique to this request either way.
   */
  serverRequestId: string
}

/**
 * The audit log: every create, replace and delete through a route that
 * declares `write` access is one `audit` log line with the request id (the
 * logger's reqId, which the client may have chosen), an id the server made,
 * the principal, the declared service, the record id and the outcome,
 * refused attempts included. Hooks are added only to routes that take POST,
 * PUT or DELETE, so reads pay nothing even with the audit log on; they read
 * the declaration when a request comes (the services' scopes declare a route
 * after this root hook has seen it).
 */
export interface AuditOptions {
  /** Who sent a request, when authentication proved it (http/security registers this plugin and hands it down). */
  principalOf: (request: FastifyRequest) => { readonly name: string } | undefined
}

async function auditPlugin (app: FastifyInstance, { principalOf }: AuditOptions): Promise<void> {
  const createdIds = new WeakMap<FastifyRequest, string>()

  function rememberCreatedId (route: RouteOptions): onSendHookHandler {
    return function rememberCreatedId (request, reply, payload, done) {
      if (request.method === 'POST' && reply.statusCode < 300 && audited(declared(route.config)?.access)) {
        const id = createdId(reply, payload)
        if (id !== undefined) createdIds.set(request, id)
      }
      done(null, payload)
    }
  }

  function writeAuditLine (route: RouteOptions): onResponseHookHandler {
    return function audit (request, reply, done) {
      const declaration = declared(route.config)
      if (declaration !== undefined && audited(declaration.access) && WRITES.has(request.method)) {
        const status = reply.statusCode
        const record: AuditRecord = {
          action: request.method === 'DELETE' ? 'delete' : request.method === 'POST' || status === 201 ? 'create' : 'replace',
          service: declaration.service,
          id: request.method === 'POST' ? createdIds.get(request) : targetId(request),
          principal: principalOf(request)?.name ?? null,
          outcome: status < 400 ? 'success' : status < 500 ? 'refused' : 'error',
          status,
          serverRequestId: request.headers['x-request-id'] === request.id ? freshRequestId() : request.id
        }
        request.log.info({ audit: record }, 'audit')
      }
      done()
    }
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (!methods.some((m) => WRITES.has(m))) return
    route.onSend = [...asArray(route.onSend), rememberCreatedId(route)]
    route.onResponse = [...asArray(route.onResponse), writeAuditLine(route)]
  })
}

/** Writes of records (`write`) and of the server's administration (`admin`: webhooks registered, deleted). */
function audited (access: string | undefined): boolean {
  return access === 'write' || access === 'admin'
}

function asArray<T> (hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]
}

/** The id in the path (`/addresses/:id`), else in the body (the student service's `PUT /students`). */
function targetId (request: FastifyRequest): string | undefined {
  const fromPath = (request.params as { id?: unknown } | undefined)?.id
  if (typeof fromPath === 'string' && fromPath !== '') return fromPath
  const fromBody = (request.body as { id?: unknown } | undefined)?.id
  return typeof fromBody === 'number' || typeof fromBody === 'string' || typeof fromBody === 'bigint' ? String(fromBody) : undefined
}

/** A created record's id: the last segment of Location, else `id` (or the envelope's `body.id`) in the answer. */
function createdId (reply: FastifyReply, payload: unknown): string | undefined {
  const location = reply.getHeader('location')
  if (typeof location === 'string') return location.slice(location.lastIndexOf('/') + 1)
  if (typeof payload !== 'string') return undefined
  try {
    const body = JSON.parse(payload) as { id?: unknown, body?: { id?: unknown } }
    const id = body.body?.id ?? body.id
    return id === undefined ? undefined : String(id)
  } catch {
    return undefined
  }
}

export const audit = fp(auditPlugin, { name: 'rqs-audit', fastify: '5.x' })
