/**
 * The domain layer: record types, the store contract, the query model, the
 * idempotency contract and domain errors. It sits below both the HTTP layer
 * and the stores and imports nothing from either (a lint rule enforces it).
 */
export { systemClock } from './clock.js'
export type { Clock } from './clock.js'
export { fold, isAscii } from './case-fold.js'
export type { FoldedField } from './case-fold.js'
export { conditionHolds } from './conditions.js'
export { CollectionChangedError, IdempotencyKeyUsedError, StoreOutcomeUnknownError, StoreUnavailableError, UndeclaredFieldError, UnstorableTextError } from './errors.js'
export { ADDRESS_FIELDS, assertDeclaredFields, OPERATORS, STREAM_BATCH_SIZE, STUDENT_FIELDS, compareText, compareValues, isAfter, matcher, orderKeys, positionOf, positionValues, sortComparator } from './query.js'
export type { AddressField, Condition, ReferenceFilter, ImportOutcome, FieldKinds, FieldValue, Operator, Position, QueryableStore, RecordFilter, RecordQuery, SortKey, StoreRevision, StudentField } from './query.js'
export { MAX_ADDRESS_ID, sameAddress, sameStudent } from './records.js'
export type { Address, AddressInput, Student, StudentInput } from './records.js'
export { DEFAULT_CHANGES_RETENTION_MS, DEFAULT_IDEMPOTENCY_RETENTION_MS, DEFAULT_MEMORY_CHANGES_KEPT, DELETED, IF_ABSENT, IF_PRESENT, NOT_FOUND, NO_CONDITION, PRECONDITION_FAILED, STUDENT_ID_RULES } from './store.js'
export type { AddressListQuery, AddressStore, CreateResult, DeleteResult, PoolStats, PutResult, RecordStore, RecordStores, ReplaceResult, StoreOptions, Stores, StudentCreated, StudentIdRule, StudentStore, WriteCondition, WriteResult } from './store.js'
export type { KeptAnswer, KeptWrite, KeptWrites, KeyedWrite } from './idempotency.js'
export type { Change, ChangeKind, ChangeListener, ChangeLog, ChangeSubscription, ChangeWindow } from './changes.js'
export { columnOf, MAX_INT64_ID, fieldKindsOf, idTypeOf, recordOf, rowShaper, sameRecord, searchedFields, userTableOf } from './collection.js'
export type { CollectionDeclaration, FieldData, FieldReference, OnDelete, IdKind, RecordId, RecordInput, StoredField, StoredRecord } from './collection.js'
export { DanglingReferenceError, deletionPlan, incomingReferences, missingReference, RecordReferencedError, referenceIdOf } from './references.js'
export type { DeletionPlan, IncomingReference, ReferenceReader } from './references.js'
export { ADDRESSES_DECLARATION, declarationsOf, studentsDeclaration, withBuiltIns } from './builtins.js'
export { BRACKET_OPERATORS, canonicalInstant, convertsFrom, JSON_TYPES, KIND_NAMES, KINDS, kindOfSchema, ORDER_OPERATORS, unconvertible, unknownKind } from './kinds/index.js'
export type { GraphqlScalar, JsonType, Kind, KindDefinition, ReadValue, ValueBounds } from './kinds/index.js'
