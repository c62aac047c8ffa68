import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AppError, type Failure } from '../../http/errors/index.js'
import { declareRoutes } from '../../http/routes/index.js'
import { principalOf } from '../../http/security/index.js'
import { answer } from '../../http/openapi/index.js'
import { ConfigError } from '../../config.js'
import type { SchemaFindings, SchemaPlan } from '../../domain/index.js'
import type { CollectionSchema } from './declare.js'
import { COLLECTIONS_PATH } from './listing.js'
import { ChangeRefused, type CollectionEntry, type CollectionRegistry, type PlannedChange } from './registry.js'

/**
 * The admin API of collections (the `admin` scope; without authentication,
 * loopback callers only): read a declaration with its ETag, create, change
 * (If-Match required: two administrators never overwrite each other),
 * remove, plan a change without applying it, and read a collection's
 * history. Every change is planned against the records held first and
 * answered with its plan; one that loses values needs a confirmation.
 */
export interface AdminRoutesOptions {
  registry: CollectionRegistry
  /** Reads a declaration (the file's form of one collection) or throws a ConfigError naming its path. */
  parse: (name: string, source: unknown, others: readonly CollectionSchema[]) => CollectionSchema
  /** The built-in collections' record schemas, by name: readable, never changed. */
  builtIns: ReadonlyMap<string, unknown>
  /** Names no collection may take (this service's own, the built-ins'). */
  taken: readonly string[]
}

type Named = FastifyRequest<{ Params: { name: string }, Querystring: { confirm?: string }, Body: unknown }>

const NameParams = { type: 'object', properties: { name: { type: 'string', maxLength: 60 } }, required: ['name'] }
const Confirm = { type: 'object', properties: { confirm: { type: 'string', maxLength: 60, description: '`drop` to accept a change that loses values (PUT); the collection\'s name to remove it (DELETE).' } }, additionalProperties: false }
const AnyObject = { type: 'object', additionalProperties: true }
const Declaration = { type: 'object', additionalProperties: true, description: 'A declaration as in the declarations file: {"schema": {…}, "ids": "sequence"|"uuid", "unique": […], "indexes": […], "description": "…"}; `"x-renamed-from"` on a field moves the values of an earlier field.' }
const Answer = { type: 'object', additionalProperties: true, description: 'The collection (name, version, origin, declaration) and, for a change, its plan and what it met in the records held.' }

export async function adminRoutes (app: FastifyInstance, { registry, parse, builtIns, taken }: AdminRoutesOptions): Promise<void> {
  declareRoutes(app, { service: 'collections' })
  const admin = { rqs: { access: 'admin' as const } }
  const tags = ['collections']

  const declarationOf = (name: string, source: unknown): CollectionSchema => {
    try {
      return parse(name, source, registry.entries().map((e) => e.schema))
    } catch (err) {
      if (err instanceof ConfigError) throw new AppError('DECLARATION_INVALID', err.message, { errors: [{ code: 'DECLARATION_INVALID', detail: err.message, field: name }] })
      throw err
    }
  }
  const existing = (name: string): CollectionEntry => {
    const entry = registry.get(name)
    if (entry !== undefined) return entry
    if (builtIns.has(name)) throw new AppError('COLLECTION_BUILT_IN', `${name} is built into rqs: it can be read, not changed or removed`, { errors: [{ code: 'COLLECTION_BUILT_IN', detail: `${name} is built in`, field: name }] })
    throw notFound(name)
  }
  const refuseBuiltIn = (name: string): void => {
    if (builtIns.has(name) || taken.includes(name)) throw new AppError('COLLECTION_BUILT_IN', `${name} is built into rqs (or a name rqs takes): it can be read, not changed or removed`, { errors: [{ code: 'COLLECTION_BUILT_IN', detail: `${name} is taken by rqs`, field: name }] })
  }
  const caller = (request: FastifyRequest): string => principalOf(request)?.name ?? 'anonymous'

  app.get<{ Params: { name: string } }>(`${COLLECTIONS_PATH}/:name`, {
    config: admin,
    schema: { operationId: 'getCollectionDeclaration', tags, summary: 'A collection\'s declaration and version (ETag; built-ins read-only)', params: NameParams, response: { 200: answer(Answer, 'The collection, with its ETag.') } }
  }, async (request, reply) => {
    const { name } = request.params
    const builtIn = builtIns.get(name)
    if (builtIn !== undefined && registry.get(name) === undefined) return { name, version: 1, origin: 'built-in', schema: builtIn }
    const entry = registry.get(name)
    if (entry === undefined) throw notFound(name)
    void reply.header('etag', etagOf(entry))
    return viewOf(entry)
  })

  app.get<{ Params: { name: string } }>(`${COLLECTIONS_PATH}/:name/history`, {
    config: admin,
    schema: { operationId: 'getCollectionHistory', tags, summary: 'Every version of a collection: when, by whom, with which plan', params: NameParams, response: { 200: answer(AnyObject, 'The versions, oldest first.') } }
  }, async (request) => {
    const { name } = request.params
    const items = await registry.history(name)
    if (items.length === 0 && registry.get(name) === undefined) throw notFound(name)
    return { items: items.map((e) => ({ version: e.version, at: e.at, caller: e.caller, declaration: e.source, plan: e.plan })) }
  })

  app.post<{ Params: { name: string }, Body: unknown }>(`${COLLECTIONS_PATH}/:name/plan`, {
    config: admin,
    schema: { operationId: 'planCollectionChange', tags, summary: 'What a new declaration would do to the records held (nothing is changed)', params: NameParams, body: Declaration, response: { 200: answer(AnyObject, 'The plan and what it meets in the records held.') } }
  }, async (request) => {
    const { name } = request.params
    refuseBuiltIn(name)
    const planned = await registry.plan(name, declarationOf(name, request.body))
    return planView(planned.plan, planned.findings)
  })

  app.post<{ Body: unknown }>(COLLECTIONS_PATH, {
    config: admin,
    schema: { operationId: 'createCollection', tags, summary: 'Create a collection: its declaration, with its `name`', body: Declaration, response: { 201: answer(Answer, 'Created: the collection and its plan; Location names it.') } }
  }, async (request, reply) => {
    const body = request.body as Record<string, unknown>
    const name = body.name
    if (typeof name !== 'string') throw new AppError('DECLARATION_INVALID', 'body.name: is required: the new collection\'s name, e.g. "books"', { errors: [{ code: 'DECLARATION_INVALID', detail: 'body.name is required', field: 'name' }] })
    refuseBuiltIn(name)
    if (registry.get(name) !== undefined) throw new AppError('COLLECTION_EXISTS', `a collection named ${name} exists already: PUT /collections/${name} changes it`, { errors: [{ code: 'COLLECTION_EXISTS', detail: `${name} exists`, field: name }] })
    const { name: _name, ...source } = body
    const done = await applied(registry.change(name, declarationOf(name, source), caller(request), { confirmDrop: false }), name)
    audit(request, name, done.plan)
    const entry = registry.get(name) as CollectionEntry
    return await reply.code(201).header('location', `${COLLECTIONS_PATH}/${name}`).header('etag', etagOf(entry)).send({ ...viewOf(entry), ...planView(done.plan, done.findings) })
  })

  app.put(`${COLLECTIONS_PATH}/:name`, {
    config: admin,
    schema: { operationId: 'changeCollection', tags, summary: 'Change a collection: the whole new declaration, applied as a migration (If-Match required; ?confirm=drop to lose values)', params: NameParams, querystring: Confirm, body: Declaration, response: { 200: answer(Answer, 'The collection as changed, with its plan and new ETag.') } }
  }, async (request: Named, reply: FastifyReply) => {
    const { name } = request.params
    refuseBuiltIn(name)
    checkIfMatch(request, existing(name))
    const done = await applied(registry.change(name, declarationOf(name, request.body), caller(request), { confirmDrop: request.query.confirm === 'drop' }), name)
    audit(request, name, done.plan)
    const entry = registry.get(name) as CollectionEntry
    return await reply.header('etag', etagOf(entry)).send({ ...viewOf(entry), ...planView(done.plan, done.findings) })
  })

  app.delete(`${COLLECTIONS_PATH}/:name`, {
    config: admin,
    schema: { operationId: 'removeCollection', tags, summary: 'Remove a collection and its records (If-Match and ?confirm=<name> required)', params: NameParams, querystring: Confirm, response: { 200: answer(AnyObject, 'Removed: the plan that was applied.') } }
  }, async (request: Named) => {
    const { name } = request.params
    refuseBuiltIn(name)
    checkIfMatch(request, existing(name))
    const referring = registry.referring(name)
    if (referring.length > 0) {
      const named = referring.map((r) => `${r.collection} (${r.fields.join(', ')})`).join(', ')
      throw new AppError('COLLECTION_REFERENCED', `${name} is referenced by ${named}: remove those references (or collections) first`, { errors: referring.map((r) => ({ code: 'COLLECTION_REFERENCED', detail: `${r.collection}.${r.fields.join(', ')} references ${name}`, field: r.collection })) })
    }
    const done = await applied(registry.change(name, undefined, caller(request), { confirmDrop: request.query.confirm === name }), name)
    audit(request, name, done.plan)
    return { name, removed: true, ...planView(done.plan, done.findings) }
  })
}

function notFound (name: string): AppError {
  return new AppError('COLLECTION_NOT_FOUND', `No collection is named ${JSON.stringify(name.slice(0, 60))}: GET /collections lists them`, { errors: [{ code: 'COLLECTION_NOT_FOUND', detail: `no collection ${name.slice(0, 60)}`, field: name.slice(0, 60) }] })
}

/** A collection's ETag: its version, which every change raises. */
function etagOf (entry: CollectionEntry): string {
  return `"v${entry.version}"`
}

function viewOf (entry: CollectionEntry): Record<string, unknown> {
  return { name: entry.name, version: entry.version, origin: entry.origin, declaration: entry.schema.source ?? null }
}

function planView (plan: SchemaPlan, findings: SchemaFindings): Record<string, unknown> {
  return { plan, findings }
}

/** PUT and DELETE change only the version the caller read: 428 without If-Match, 412 when it names another. */
function checkIfMatch (request: FastifyRequest, entry: CollectionEntry): void {
  const sent = request.headers['if-match']
  if (sent === undefined) throw new AppError('IF_MATCH_REQUIRED', `Send If-Match: ${etagOf(entry)} (the ETag of GET /collections/${entry.name}) to change it`, { errors: [{ code: 'IF_MATCH_REQUIRED', detail: 'If-Match is required', field: entry.name }] })
  const tags = sent.split(',').map((t) => t.trim().replace(/^W\//, ''))
  if (!tags.includes('*') && !tags.includes(etagOf(entry))) throw new AppError('PRECONDITION_FAILED', `The collection ${entry.name} is at version ${entry.version} (ETag ${etagOf(entry)}), not the one If-Match names: read it again`)
}

/** A change's answer, or its refusal as the catalogue says (the records that block it named one an entry). */
async function applied<T extends PlannedChange> (change: Promise<T>, name: string): Promise<T> {
  try {
    return await change
  } catch (err) {
    if (!(err instanceof ChangeRefused)) throw err
    const { plan, findings } = err.planned
    if (err.reason === 'unconfirmed') {
      const lost = plan.action === 'remove' ? `its ${findings.records} records` : Object.entries(findings.lost).map(([f, n]) => `${n} values of ${f}`).join(', ')
      const how = plan.action === 'remove' ? `?confirm=${name}` : '?confirm=drop'
      throw new AppError('CONFIRMATION_REQUIRED', `The change loses ${lost}: send it again with ${how}`, { errors: [{ code: 'CONFIRMATION_REQUIRED', detail: `loses ${lost}`, field: name }] })
    }
    const entries: Failure[] = err.reason === 'failed'
      ? [{ code: 'CHANGE_REFUSED', detail: err.message, field: name }]
      : err.reason === 'refused'
      ? plan.refused.map((r) => ({ code: 'CHANGE_REFUSED', detail: r, field: r.split(':')[0] ?? name }))
      : [
          ...findings.unconvertible.map((u) => ({ code: 'CHANGE_REFUSED' as const, detail: `${u.field}: records ${u.records.map((r) => `${String(r.id)} (${JSON.stringify(r.value).slice(0, 40)})`).join(', ')} hold values that do not convert; correct them first`, field: u.field })),
          ...findings.duplicates.map((d) => ({ code: 'CHANGE_REFUSED' as const, detail: `${d.fields.join(', ')}: records ${d.records.map(String).join(', ')} share values, so the unique key cannot be added; correct them first`, field: d.fields.join(', ') }))
        ]
    throw new AppError('CHANGE_REFUSED', entries.map((e) => e.detail).join('; '), { errors: entries })
  }
}

/** The audit log's line of a change: who changed which collection, with which plan. */
function audit (request: FastifyRequest, name: string, plan: SchemaPlan): void {
  request.log.info({ audit: { action: 'schema', collection: name, principal: principalOf(request)?.name ?? null, plan } }, 'audit')
}
