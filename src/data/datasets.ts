import { Type, type TSchema } from '@sinclair/typebox'
import { Ajv, type ValidateFunction } from 'ajv'
import { validationFailures } from '../http/errors/validation.js'
import type { CollectionModel } from '../http/query/model.js'
import { BODY_VALIDATION } from '../http/validation.js'
import { ADDRESS_QUERY, addressLine } from '../services/addresses/query.js'
import { AddressCreateBody } from '../services/addresses/schema.js'
import { STUDENT_QUERY, studentLine } from '../services/students/query.js'
import { StudentReplaceBody } from '../services/students/schema.js'
import { MAX_ADDRESS_ID } from '../stores/records.js'
import type { QueryableStore } from '../stores/query.js'
import type { Address, Stores, Student } from '../stores/types.js'

/**
 * A service's records as files hold them: one JSON object a line, checked
 * with the API's own schemas (a student line is a PUT body: the id is kept;
 * an address line a POST body plus its id).
 */
export interface Dataset<R = unknown> {
  name: 'students' | 'addresses'
  store: (stores: Stores) => QueryableStore<R, string>
  /** The line of a record, newline included. */
  line: (record: R) => string
  /** The record's id: two lines with one id are one record. */
  id: (record: R) => number | bigint
  /** The record of a parsed line, or the reason it is not one. */
  check: (value: unknown) => { record: R } | { reason: string }
  /** What `--query` may ask for (the collection's list parameters). */
  model: CollectionModel
}

const ajv = new Ajv(BODY_VALIDATION)

function checker (schema: TSchema): (value: unknown) => { ok: true } | { reason: string } {
  const validate: ValidateFunction = ajv.compile(schema)
  return (value) => {
    if (validate(value)) return { ok: true }
    const failures = validationFailures(validate.errors ?? [], 'body')
    return { reason: failures.map((f) => f.detail.replace(/^body\./, '')).join('; ') }
  }
}

const studentLineSchema = checker(StudentReplaceBody)

export const STUDENTS: Dataset<Student> = {
  name: 'students',
  store: (stores) => stores.students,
  line: studentLine,
  id: (s) => s.id,
  check: (value) => {
    const result = studentLineSchema(value)
    if ('reason' in result) return result
    const s = value as Student
    return { record: { id: s.id, firstName: s.firstName, lastName: s.lastName, age: s.age } }
  },
  model: STUDENT_QUERY
}

const addressLineSchema = checker(Type.Object({ id: Type.Unknown(), ...AddressCreateBody.properties }, { additionalProperties: false, required: ['id', 'name', 'city', 'postalCode'] }))

export const ADDRESSES: Dataset<Address> = {
  name: 'addresses',
  store: (stores) => stores.addresses,
  line: addressLine,
  id: (a) => a.id,
  check: (value) => {
    const result = addressLineSchema(value)
    if ('reason' in result) return result
    const a = value as Omit<Address, 'id'> & { id: unknown }
    const id = typeof a.id === 'bigint' ? a.id : typeof a.id === 'number' && Number.isSafeInteger(a.id) ? BigInt(a.id) : undefined
    if (id === undefined || id < 1n || id > MAX_ADDRESS_ID) return { reason: `id must be an integer from 1 to ${MAX_ADDRESS_ID}` }
    return { record: { id, name: a.name, city: a.city, postalCode: a.postalCode } }
  },
  model: ADDRESS_QUERY
}

// Each dataset only ever meets its own records, so the element type can be forgotten here.
const DATASETS = new Map<string, Dataset>([['students', STUDENTS as unknown as Dataset], ['addresses', ADDRESSES as unknown as Dataset]])

export const DATASET_NAMES = [...DATASETS.keys()]

export function datasetNamed (name: string): Dataset | undefined {
  return DATASETS.get(name)
}
