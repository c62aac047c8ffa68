import type { TSchema } from '@sinclair/typebox'
import { Ajv, type ValidateFunction } from 'ajv'
import { plainReasons, validationFailures, type ErrorCode, type Failure } from '../http/errors/index.js'
import { BODY_VALIDATION } from '../http/rest/index.js'
import type { CollectionModel } from '../records/index.js'
import type { QueryableStore, RecordStores } from '../domain/index.js'
import { onFirstUse } from '../lib/first-use.js'

// Made when a line or a GraphQL write is first checked, not when the module loads (a start checks neither).
const ajv = onFirstUse(() => {
  const made = new Ajv(BODY_VALIDATION)
  // OpenAPI's 64-bit integer (address ids), as the REST validators know it.
  made.addFormat('int64', { type: 'number', validate: Number.isInteger })
  return made
})

/**
 * A collection of records a service declares (`collections` of its
 * descriptor): what `rqs import` and `rqs export --service <name>`, `rqs serve
 * --seed` and the change feed read about it. In files its records are one
 * JSON object a line, checked with the API's own schemas.
 */
export interface ServedCollection<R = unknown> {
  /** `--service <name>` of import and export; the change feed's `<name>.created` events and `?services=<name>`. */
  name: string
  /** The record as the API answers it (the newest representation): `record` in the change feed. */
  schema: TSchema
  /**
   * A declared collection's schema as declared (limits, titles, patterns and
   * their hints), what GET /collections shows and the web app's words state;
   * absent: `schema` says it all.
   */
  declared?: TSchema
  /** The field that names a record where a reference shows it (a declared collection's `x-label` or its rule); absent: the id. */
  label?: string
  store (stores: RecordStores): QueryableStore<R, string>
  /** The members of a line: the first line of a seed file tells its collection by them. */
  fields: readonly string[]
  /** The line of a record, newline included. */
  line (record: R): string
  /** The record's id: two lines with one id are one record. */
  id (record: R): number | bigint | string
  /** The record of a parsed line, or the reason it is not one. */
  check (value: unknown): { record: R } | { reason: string }
  /** What `--query` may ask for (the collection's list parameters). */
  model: CollectionModel
  /**
   * The write bodies as REST checks them (POST, and PUT without its id), for
   * writers besides the REST routes (GraphQL's mutations): REST's failures,
   * `body.<field>` details included, or none.
   */
  checkBody?: (kind: 'create' | 'replace', body: unknown) => Failure[]
  /** The record's strong ETag as REST sends it (If-Match; GraphQL's `ifMatch`). */
  etag? (record: R): string
  /** The code REST answers a missing record with. */
  notFound?: ErrorCode
}

/** A checkBody of REST's POST and PUT schemas, compiled with the server's body rules (or `compile`, for declared formats). */
export function bodyChecks (schemas: { create: TSchema, replace: TSchema }, compile: (schema: TSchema) => ValidateFunction = (schema) => ajv().compile(schema)): NonNullable<ServedCollection['checkBody']> {
  // Compiled when first used (most servers never take a GraphQL write): the start pays nothing for them.
  const create = onFirstUse(() => compile(schemas.create))
  const replace = schemas.replace === schemas.create ? create : onFirstUse(() => compile(schemas.replace))
  return (kind, body) => {
    const validate = kind === 'create' ? create() : replace()
    return validate(body) ? [] : validationFailures(validate.errors ?? [], 'body')
  }
}


/** Checks a parsed line against a schema; what is wrong in words a person reads, limits included (plainReasons). */
export function lineChecker (schema: TSchema): (value: unknown) => { ok: true } | { reason: string } {
  // Compiled when a file is first read: `rqs serve` without --seed never checks a line.
  const compiled = onFirstUse((): ValidateFunction => ajv().compile(schema))
  return (value) => {
    const validate = compiled()
    if (validate(value)) return { ok: true }
    return { reason: plainReasons(validate.errors ?? []) }
  }
}

/** `students or addresses`: the names, for usage texts and messages. */
export function collectionNames (collections: readonly ServedCollection[], separator = ' or '): string {
  return collections.map((c) => c.name).join(separator)
}
