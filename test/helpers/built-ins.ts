import type { CollectionDeclaration, RecordStores, StoreOptions as EngineOptions } from '../../src/domain/index.js'
import { memoryStores as openMemory, observeFailures as observe, type StoreFailureListener } from '../../src/stores/index.js'
import { openSqliteStores as openSqlite, type SqliteOptions } from '../../src/stores/sqlite/index.js'
import { openPostgresStores as openPostgres, type PostgresOptions } from '../../src/stores/postgres/index.js'
import { studentsDeclaration, studentStore, type StudentIdRule, type StudentStore } from '../../src/services/students/records.js'
import { ADDRESSES_DECLARATION, addressStore, type AddressStore } from '../../src/services/addresses/records.js'
import { collectionStore } from '../../src/services/records/routes.js'

export type { Student, StudentInput, StudentField, StudentCreated, StudentIdRule, StudentStore } from '../../src/services/students/records.js'
export { STUDENT_FIELDS, STUDENT_ID_RULES, sameStudent, studentsDeclaration, studentStore } from '../../src/services/students/records.js'
export type { Address, AddressInput, AddressField, AddressListQuery, AddressStore, PutResult } from '../../src/services/addresses/records.js'
export { ADDRESSES_DECLARATION, addressStore, sameAddress } from '../../src/services/addresses/records.js'

/**
 * The stores as a server opens them with its built-in services (students,
 * then addresses, then the collections given), and those services' typed
 * views of theirs: what store tests write through. The stores themselves
 * know no collection; the services hand theirs over (src/server.ts).
 */
export interface Stores extends RecordStores {
  students: StudentStore
  addresses: AddressStore
}

/** The engine's options, and the students' id rule (`--student-ids`; default the spec's count). */
export type StoreOptions = EngineOptions & { studentIds?: StudentIdRule }

/** The declarations a default server hands its stores: the built-in services' first, then `collections`. */
export function builtInDeclarations ({ studentIds, collections = [] }: StoreOptions = {}): CollectionDeclaration[] {
  return [studentsDeclaration(studentIds ?? 'count'), ADDRESSES_DECLARATION, ...collections]
}

/** Record stores with the built-in services' typed views over theirs. */
export function withBuiltIns (stores: RecordStores): Stores {
  return { ...stores, students: studentStore(collectionStore(stores, 'students')), addresses: addressStore(collectionStore(stores, 'addresses')) }
}

function engine<O extends StoreOptions> (options: O): Omit<O, 'studentIds'> & EngineOptions {
  const { studentIds: _ids, ...rest } = options
  return { ...rest, collections: builtInDeclarations(options) }
}

export function memoryStores (options: StoreOptions = {}): Stores {
  return withBuiltIns(openMemory(engine(options)))
}

export function openSqliteStores (options: SqliteOptions & StoreOptions): Stores {
  return withBuiltIns(openSqlite(engine(options)))
}

export async function openPostgresStores (options: PostgresOptions & StoreOptions): Promise<Stores> {
  return withBuiltIns(await openPostgres(engine(options)))
}

/** observeFailures of src/stores, the built-in views built again over the observed collections. */
export function observeFailures (stores: RecordStores, onFailure: StoreFailureListener): Stores {
  return withBuiltIns(observe(stores, onFailure))
}
