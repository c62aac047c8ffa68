import type { FastifyInstance } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import { declareRoutes } from '../../http/routes/index.js'
import { answer } from '../../http/openapi/index.js'

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
          schema: { type: 'object', additionalProperties: true, description: 'The record as JSON Schema, id included. A declared string field without maxLength holds at most 10000 characters (the maxLength shown).' },
          sort: { type: 'array', items: { type: 'string' }, description: 'The fields `?sort=` accepts, id included (a declared collection: the required fields).' },
          filters: {
            type: 'object',
            additionalProperties: { type: 'array', items: { type: 'string', enum: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'contains'] } },
            description: 'The filter operators of each field: `eq` is `field=value`, the others `field[op]=value`.'
          }
        },
        required: ['name', 'href', 'declared', 'schema', 'sort', 'filters']
      }
    }
  },
  required: ['items']
}

/**
 * GET /collections: every collection this server serves, built-in and
 * declared, with its record schema, so the web app and clients discover
 * them. The answer changes only with the collections (the registry's
 * version): serialised once per version.
 */
export async function collectionsListing (app: FastifyInstance, opts: { listed: () => readonly ListedCollection[], version: () => number }): Promise<void> {
  let kept: { version: number, body: string } | undefined
  const serialised = (): string => {
    const version = opts.version()
    if (kept?.version !== version) kept = { version, body: JSON.stringify({ items: opts.listed() }) }
    return kept.body
  }
  declareRoutes(app, { service: 'collections', access: 'read' })
  app.get(COLLECTIONS_PATH, {
    schema: {
      operationId: 'listCollections',
      tags: ['collections'],
      summary: 'Every collection with its record schema (built-in and declared)',
      response: { 200: answer(Listing, 'The collections, in the order of the directory.') }
    }
  }, async (_request, reply) => await reply.header('content-type', 'application/json; charset=utf-8').send(serialised()))
}
