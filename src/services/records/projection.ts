import type { FastifyReply } from 'fastify'
import { LRUCache } from 'lru-cache'
import { QueryRefused, csvColumns, splitList, type CollectionModel } from '../../records/index.js'
import { closestWord } from '../../lib/suggest.js'

/**
 * Projection (issue 31, item 5): `fields=title,year` answers only those
 * fields, and always the id, in the order asked: one record, JSON pages and
 * whole lists, NDJSON lines and CSV columns. A field of the record left out
 * is not an error to read; an unknown name is INVALID_QUERY with "did you
 * mean". The records are read whole (an ETag stays the record's, so a 304
 * still works) and written by a serializer of the record's schema narrowed
 * to the fields, compiled once per field list (a few kept per route).
 */
export const FIELDS_PARAM = 'fields'

/** The parameter in a route's query string schema (and OpenAPI). */
export const FIELDS_SCHEMA = {
  type: 'string',
  maxLength: 2000,
  description: 'Only these fields, separated by commas, in this order (the id is always given first): e.g. `fields=title,year`. Applies to JSON, NDJSON and CSV (its columns). The ETag stays the whole record\'s.'
}

/** A query string schema with `fields` added (the list's, or none for one record). */
export function withFields (querystring?: unknown): Record<string, unknown> {
  const schema = (querystring ?? { type: 'object', properties: {} }) as { properties?: Record<string, unknown> }
  return { ...schema, properties: { ...schema.properties, [FIELDS_PARAM]: FIELDS_SCHEMA } }
}

type Serialize = (value: unknown) => string

/** The projection of one collection's routes. */
export class Projection {
  readonly #fields: string[]
  readonly #serializers = new LRUCache<string, { record: Serialize, page: Serialize, array: Serialize }>({ max: 32 })

  constructor (private readonly model: CollectionModel, private readonly record: unknown) {
    this.#fields = Object.keys(model.fields).filter((name) => !name.includes('.'))
  }

  /** The fields a `fields` value names (undefined when absent), or INVALID_QUERY naming each unknown one. */
  read (value: unknown): string[] | undefined {
    if (value === undefined) return undefined
    const names = [...new Set(splitList(String(value)).map((n) => n.trim()).filter((n) => n !== 'id'))]
    const unknown = names.filter((n) => !this.#fields.includes(n))
    if (unknown.length > 0) {
      const errors = unknown.map((n) => {
        const meant = closestWord(n, this.#fields)
        return { code: 'INVALID_QUERY' as const, field: FIELDS_PARAM, detail: `${FIELDS_PARAM}: "${n}" is not a field of this collection${meant === undefined ? '' : ` (did you mean ${meant}?)`}` }
      })
      throw new QueryRefused('INVALID_QUERY', `${errors.map((e) => e.detail).join('; ')}. Fields: id, ${this.#fields.join(', ')}`, { errors })
    }
    return names
  }

  /** The query without `fields`, for the list's parser, and the fields read from it. */
  split (query: Readonly<Record<string, unknown>>): { query: Record<string, unknown>, fields?: string[] } {
    if (!Object.hasOwn(query, FIELDS_PARAM)) return { query: query as Record<string, unknown> }
    const { [FIELDS_PARAM]: value, ...rest } = query
    return { query: rest, fields: this.read(value) }
  }

  /** CSV columns of the fields: the id, then each field's columns (an object field's nested ones) in the order asked. */
  columns (fields: readonly string[]): string[] {
    const all = csvColumns(this.model)
    return ['id', ...fields.flatMap((f) => all.filter((c) => c === f || c.startsWith(`${f}.`)))]
  }

  /** Serializers of a record, a page `{items, next}` and an array, narrowed to the fields. */
  serializers (reply: FastifyReply, fields: readonly string[]): { record: Serialize, page: Serialize, array: Serialize } {
    const key = fields.join(',')
    let kept = this.#serializers.get(key)
    if (kept === undefined) {
      const record = narrowed(this.record, fields)
      const compile = (schema: unknown): Serialize => reply.compileSerializationSchema(schema as Record<string, unknown>) as Serialize
      kept = {
        record: compile(record),
        page: compile({ type: 'object', properties: { items: { type: 'array', items: record }, next: { type: 'string' } }, required: ['items'] }),
        array: compile({ type: 'array', items: record })
      }
      this.#serializers.set(key, kept)
    }
    return kept
  }
}

/** A record's object schema with only the id and `fields`, in that order, each required only if it was. */
function narrowed (schema: unknown, fields: readonly string[]): Record<string, unknown> {
  const { properties = {}, required = [] } = schema as { properties?: Record<string, unknown>, required?: string[] }
  const kept = ['id', ...fields].filter((f) => Object.hasOwn(properties, f))
  return {
    type: 'object',
    properties: Object.fromEntries(kept.map((f) => [f, properties[f]])),
    required: required.filter((f) => kept.includes(f)),
    additionalProperties: false
  }
}
