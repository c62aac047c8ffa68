import type { ValidateFunction } from 'ajv'
import { bodyChecks, type ServedCollection } from '../../data/collection.js'
import type { StoredRecord } from '../../domain/index.js'
import type { CollectionSchema } from './declare.js'
import { createBody, idSchema, lineBody, lineOf, queryModel, declaredSchema, recordSchema } from './schema.js'
import { bodyChecker, collectionValidator } from './validation.js'
import { recordEtag } from '../../http/rest/index.js'
import { labelFieldOf } from './label.js'

/**
 * A declared collection in files (`rqs import`/`export --service books`,
 * seed files) and in the change feed: a line is the record, `{"id", fields…}`
 * with the fields' own JSON types, checked as a POST body is, plus its id.
 */
export function servedCollection (collection: CollectionSchema): ServedCollection<StoredRecord> {
  const { declaration } = collection
  const body = lineBody(collection) as unknown as { properties: Record<string, unknown>, required?: string[] }
  const line = { ...body, properties: { id: idSchema(collection), ...body.properties }, required: ['id', ...body.required ?? []] }
  const check = bodyChecker(line)
  const fields = Object.keys(collection.properties)
  return {
    name: declaration.name,
    schema: recordSchema(collection),
    declared: declaredSchema(collection),
    label: labelFieldOf(collection),
    store: (stores) => {
      const store = stores.collections.get(declaration.name)
      if (store === undefined) throw new RangeError(`the stores keep no collection ${declaration.name}: open them with its declaration`)
      return store
    },
    fields: ['id', ...fields],
    line: lineOf(collection),
    id: (record) => record.id,
    check: (value) => {
      const result = check(value)
      if ('reason' in result) return result
      const given = value as Record<string, unknown>
      const record: Record<string, unknown> = { id: given.id }
      for (const field of fields) if (given[field] !== undefined && given[field] !== null) record[field] = given[field]
      return { record: record as StoredRecord }
    },
    model: queryModel(collection),
    checkBody: bodyChecks({ create: createBody(collection), replace: createBody(collection) }, (schema) => collectionValidator({ schema, httpPart: 'body' } as never) as ValidateFunction),
    etag: recordEtag,
    notFound: 'RECORD_NOT_FOUND'
  }
}
