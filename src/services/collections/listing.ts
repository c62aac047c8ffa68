import type { FastifyInstance } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import { declareRoutes } from '../../http/routes/index.js'
import { answer } from '../../http/openapi/index.js'
import { callerOf, principalOf } from '../../http/security/index.js'
import type { CollectionAccess } from '../../domain/index.js'
import { attemptable, recordConditions } from './operations.js'

export const COLLECTIONS_PATH = '/collections'

/** One collection as GET /collections lists it. */
export interface ListedCollection {
  name: string
  /** Where its records are (a built-in service's link, `/<name>` for a declared one). */
  href: string
  /** The record's JSON Schema, id included. */
  schema: TSchema
  /** Declared by the user (`--collections`) rather than built in. */
  declared: boolean
  /** The fields a list may be sorted by (`?sort=`), id included: the query model's sort keys. */
  sort: string[]
  /** The filter operators of each field (`eq` is `field=value`), by its kind. */
  filters: Record<string, readonly string[]>
  /** The field that names a record where a reference shows it (`x-label`, else the first required string field, else `id`). */
  label: string
  /** The declaration's `description`, if any. */
  description?: string
  /** Its rules (docs/rules.md), when it declares any: the answer then says which operations the caller may attempt. */
  access?: CollectionAccess
}

const Listing = {
  type: 'object',
  title: 'CollectionList',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        title: 'CollectionInfo',
        properties: {
          name: { type: 'string' },
          href: { type: 'string', format: 'uri-reference' },
          declared: { type: 'boolean', description: 'Declared with --collections (false: built in).' },
          description: { type: 'string', description: 'The declaration\'s `description` of the collection, when it has one.' },
          label: { type: 'string', description: 'The field that names a record where a reference to it is shown (the web app\'s cells, pickers and record pages): the declaration\'s `"x-label"`, else the first required string field, else `id`.' },
          schema: { type: 'object', additionalProperties: true, description: 'The record as JSON Schema, id included. A declared string field without maxLength holds at most 10000 characters (the maxLength shown).' },
          sort: { type: 'array', items: { type: 'string' }, description: 'The fields `?sort=` accepts, id included (a declared collection: the required fields).' },
          filters: {
            type: 'object',
            additionalProperties: { type: 'array', items: { type: 'string', enum: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains'] } },
            description: 'The filter operators of each field: `eq` is `field=value`, the others `field[op]=value`.'
          },
          operations: {
            type: 'array',
            items: { type: 'string', enum: ['list', 'view', 'create', 'update', 'delete'] },
            description: 'Only for a collection with rules (docs/rules.md): the operations this caller may attempt. One left out is refused whatever the record (its scope is missing, or its rule holds for no record of this caller); one listed may still be refused for a record.'
          },
          conditions: {
            type: 'object',
            additionalProperties: true,
            description: 'Only for a collection with rules: for `update` and `delete`, when the rule depends on the record, the filter expression (as a tree) a record must match for this caller to change it; the web app offers Edit and Delete only on those rows.'
          }
        },
        required: ['name', 'href', 'declared', 'label', 'schema', 'sort', 'filters']
      }
    }
  },
  required: ['items']
}

/**
 * GET /collections: every collection this server serves, built-in and
 * declared, with its record schema, so the web app and clients discover
 * them. The answer changes only with the collections (the registry's
 * version): serialised once per version, unless a collection has rules: then
 * it says per caller what that caller may attempt, made per request.
 */
export async function collectionsListing (app: FastifyInstance, opts: { listed: () => readonly ListedCollection[], version: () => number, auth: boolean }): Promise<void> {
  let kept: { version: number, body: string, listed: readonly ListedCollection[], perCaller: boolean } | undefined
  const current = (): { body: string, listed: readonly ListedCollection[], perCaller: boolean } => {
    const version = opts.version()
    if (kept?.version !== version) {
      const listed = opts.listed()
      kept = { version, listed, perCaller: listed.some((c) => c.access !== undefined), body: JSON.stringify({ items: listed.map(({ access: _access, ...rest }) => rest) }) }
    }
    return kept
  }
  declareRoutes(app, { service: 'collections', access: 'read' })
  app.get(COLLECTIONS_PATH, {
    schema: {
      operationId: 'listCollections',
      tags: ['collections'],
      summary: 'Every collection with its record schema (built-in and declared)',
      response: { 200: answer(Listing, 'The collections, in the order of the directory.') }
    }
  }, async (request, reply) => {
    void reply.header('content-type', 'application/json; charset=utf-8')
    const { body, listed, perCaller } = current()
    if (!perCaller) return await reply.send(body)
    const caller = callerOf(request)
    const write = !opts.auth || principalOf(request)?.scopes.has('write') === true
    return await reply.send(JSON.stringify({ items: listed.map(({ access, ...rest }) => access === undefined ? rest : { ...rest, operations: attemptable(access, caller, { write }), conditions: recordConditions(access, caller) }) }))
  })
}
