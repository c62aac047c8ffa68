/**
 * The domain layer: the record engine's types (no collection of its own), the store contract, the query model, the
 * idempotency contract and domain errors. It sits below both the HTTP layer
 * and the stores and imports nothing from either (a lint rule enforces it).
 */
export { aggregateRecords, finishGroups, MAX_GROUP_FIELDS, MAX_GROUPS } from './aggregate.js'
export type { AggregateAsk, AggregateGroup, AggregateQuery, AggregateRow } from './aggregate.js'
export { systemClock } from './clock.js'
export type { Clock } from './clock.js'
export { fold, isAscii } from './case-fold.js'
export type { FoldedField } from './case-fold.js'
export { conditionHolds } from './conditions.js'
export { changedKeptField, mergePatch } from './merge-patch.js'
export { CollectionChangedError, IdempotencyKeyUsedError, StoreOutcomeUnknownError, StoreUnavailableError, UndeclaredFieldError, UnitOfWorkStalledError, UnstorableTextError } from './errors.js'
export { assertDeclaredFields, LIST_OPERATORS, OPERATORS, STREAM_BATCH_SIZE, compareText, compareValues, isAfter, matcher, orderKeys, positionOf, positionValues, sortComparator } from './query.js'
export type { Condition, FilterOperator, ImportOutcome, FieldKinds, FieldValue, JsonData, JsonValue, ListCondition, ListOperator, Operator, Position, QueryableStore, RecordFilter, RecordQuery, SortKey, StoreRevision } from './query.js'
export { DEFAULT_CHANGES_RETENTION_MS, DEFAULT_IDEMPOTENCY_RETENTION_MS, DEFAULT_MEMORY_CHANGES_KEPT, DELETED, IF_ABSENT, IF_PRESENT, NOT_FOUND, NO_CONDITION, PRECONDITION_FAILED } from './store.js'
export type { CreateResult, DeleteResult, PoolStats, RecordStore, RecordStores, RecordWrites, UnitOfWork, ReplaceResult, StoreOptions, WriteCondition, WriteResult } from './store.js'
export { allOf, checkFilter, expressionTest, fieldsOf, liftConditions, FilterError, MAX_FILTER_COMPARISONS, MAX_FILTER_DEPTH, MAX_FILTER_LENGTH, parseFilter, readLiteral } from './filter/index.js'
export type { Comparison, FilterExpr, FilterField, FilterFields, Literal, SyntaxNode } from './filter/index.js'
export type { KeptAnswer, KeptWrite, KeptWrites, KeyedWrite } from './idempotency.js'
export type { Change, ChangeKind, ChangeListener, ChangeLog, ChangeSubscription, ChangeWindow } from './changes.js'
export { columnOf, DuplicateKeyError, jsonOf, MAX_INT64_ID, fieldKindsOf, idTypeOf, recordOf, rowShaper, sameRecord, searchedFields, userTableOf } from './collection.js'
export type { CollectionDeclaration, FieldData, IdKind, RecordId, RecordInput, StoredField, StoredRecord } from './collection.js'
export { inDeclaredOrder, isPath, MAX_DEPTH, nestedScalars, shapeChanges, valueAtPath } from './paths.js'
export type { FieldShape, NestedScalar } from './paths.js'
export { BRACKET_OPERATORS, LIST_FILTERS, isJsonObject, canonicalInstant, convertsFrom, JSON_TYPES, KIND_NAMES, KINDS, kindOfSchema, ORDER_OPERATORS, unconvertible, unknownKind } from './kinds/index.js'
export type { GraphqlScalar, JsonType, Kind, KindDefinition, ReadValue, ValueBounds } from './kinds/index.js'
export type { AttemptOutcome, Delivery, DeliveryState, NewDelivery, Webhook, WebhookStore } from './webhooks.js'
