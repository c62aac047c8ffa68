import type { FastifyRequest } from 'fastify'
import type { CollectionDeclaration, RecordInput } from '../../domain/index.js'
import { AppError, validationFailures, type Failure } from '../../http/errors/index.js'
import { closestWord } from '../../lib/suggest.js'

/**
 * What a write body of the record routes may hold: one record, or a bulk
 * create's array of them. Students v1 keeps its spec's silent drop of
 * unknown members; these routes (students v2, addresses, declared
 * collections) refuse them, naming each with the field it most likely meant.
 * The merge itself is the domain's (mergePatch), shared with GraphQL.
 */

/** The most records one bulk create takes (the body limit applies as well). */
export const MAX_BULK_RECORDS = 10_000

export const MERGE_PATCH_TYPE = 'application/merge-patch+json'

/** The members a write body may have: the declared fields and the record's `id` (checked or ignored by the route). */
export function bodyMembers (declaration: CollectionDeclaration): readonly string[] {
  return ['id', ...Object.keys(declaration.fields)]
}

/** FIELD_UNKNOWN entries for the members of `body` that are not in `members`; `at` prefixes the field (a bulk item's `/3/`). */
export function unknownMembers (body: Readonly<Record<string, unknown>>, members: readonly string[], at = ''): Failure[] {
  const failures: Failure[] = []
  for (const member of Object.keys(body)) {
    if (members.includes(member)) continue
    const meant = closestWord(member, members.filter((m) => m !== 'id'))
    const field = `${at}${member}`
    failures.push({ code: 'FIELD_UNKNOWN', field, detail: `body${at === '' ? '.' : ''}${field} names no field of this record${meant === undefined ? '' : ` (did you mean ${meant}?)`}` })
  }
  return failures
}

/** Refuses a body with members the record does not have (a bulk create's array: bulkInputs checks its items). */
export function refuseUnknownMembers (body: unknown, members: readonly string[]): void {
  if (!isObject(body)) return
  const failures = unknownMembers(body, members)
  if (failures.length > 0) throw new AppError('VALIDATION_FAILED', failures.map((f) => f.detail).join('; '), { errors: failures, subject: 'body' })
}

export function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The fields a body schema marks `readOnly` (set by the server: automatic timestamps). */
export function readOnlyFields (schema: unknown): readonly string[] {
  if (typeof schema !== 'object' || schema === null) return []
  const found = readOnlyBySchema.get(schema)
  if (found !== undefined) return found
  const properties = (schema as { properties?: Record<string, { readOnly?: unknown }> }).properties ?? {}
  const fields = Object.freeze(Object.keys(properties).filter((field) => properties[field]?.readOnly === true))
  readOnlyBySchema.set(schema, fields)
  return fields
}

/**
 * Read once per create schema: three routes on each of a collection's mounts ask for the same schema's, and
 * a schema object is never changed once its routes are made (one changed at run time is a new object).
 */
const readOnlyBySchema = new WeakMap<object, readonly string[]>()

/**
 * A filtered PATCH's patch, checked without a record: each member sent as
 * the create body checks it, a required field set to null is FIELD_REQUIRED,
 * and neither the id nor a field kept on update may be sent (each record has
 * its own).
 */
export function checkPatch (validate: Validate, declaration: CollectionDeclaration, patch: Readonly<Record<string, unknown>>): Failure[] {
  const failures: Failure[] = []
  const present: Record<string, unknown> = {}
  for (const [field, value] of Object.entries(patch)) {
    if (field === 'id' || declaration.keptOnUpdate.includes(field)) {
      failures.push({ code: 'FIELD_INVALID', field, detail: `body.${field} cannot be patched on many records at once` })
    } else if (value === null) {
      if (declaration.fields[field]?.required === true) failures.push({ code: 'FIELD_REQUIRED', field, detail: `body.${field} is required: it cannot be removed` })
    } else {
      present[field] = value
    }
  }
  // The fields not sent keep each record's own (valid) values: their absence is no failure here.
  const own = checkRecord(validate, present).filter((f) => !(f.code === 'FIELD_REQUIRED' && f.field !== undefined && !Object.hasOwn(present, f.field)))
  return [...failures, ...own]
}

type Validate = ((data: unknown) => boolean) & { errors?: unknown }

/** The route's own body validator for `schema` (the scope's compiler: declared formats included). */
export function bodyValidator (request: FastifyRequest, schema: unknown): Validate {
  return request.compileValidationSchema(schema as Record<string, unknown>, 'body') as Validate
}

/** A record checked as the create body is; VALIDATION_FAILED naming each field (prefixed with `at`) otherwise. */
export function checkRecord (validate: Validate, record: Record<string, unknown>, at = ''): Failure[] {
  if (validate(record)) return []
  const issues = (validate.errors ?? []) as Parameters<typeof validationFailures>[0]
  const failures = validationFailures(issues, 'body')
  if (at === '') return failures
  return failures.map((f) => {
    const field = `${at}${(f.field ?? '').replaceAll('.', '/')}`
    return { ...f, field, detail: f.detail.replace(/^body\.?/, `body${at.slice(0, -1)}/`) }
  })
}

/** The bulk create's items, as inputs: VALIDATION_FAILED naming `/index/field` for every bad one (nothing is written). */
export function bulkInputs (validate: Validate, members: readonly string[], body: readonly unknown[]): RecordInput[] {
  if (body.length === 0 || body.length > MAX_BULK_RECORDS) {
    throw new AppError('BULK_SIZE', `A bulk create holds 1 to ${MAX_BULK_RECORDS} records; this one holds ${body.length}`)
  }
  const failures: Failure[] = []
  const inputs: RecordInput[] = []
  body.forEach((item, index) => {
    if (!isObject(item)) {
      failures.push({ code: 'FIELD_TYPE', field: `/${index}`, detail: `body/${index} must be an object` })
      return
    }
    failures.push(...unknownMembers(item, members, `/${index}/`))
    const { id: _ignored, ...input } = item
    failures.push(...checkRecord(validate, input, `/${index}/`))
    inputs.push(input as RecordInput)
  })
  if (failures.length > 0) throw new AppError('VALIDATION_FAILED', failures.slice(0, 20).map((f) => f.detail).join('; '), { errors: failures, subject: 'body' })
  return inputs
}
