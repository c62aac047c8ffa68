/**
 * The record layer: how a collection's records are asked for and written out,
 * whatever the transport: the query model (fields, operators, limits), the
 * query language's parser and its JSON Schema, cursors, pages, and the CSV and
 * NDJSON stream forms. REST, GraphQL, the CLI and import/export import it; it
 * imports only src/domain and src/lib (docs/architecture.md).
 */
export { BRACKET_OPERATORS, CONTROL_PARAMS, MAX_CURSOR_LENGTH, MAX_SEARCH_LENGTH, MAX_SORT_LENGTH, acceptedParameters, describeParameter, EXPRESSION_PARAM, fieldParam, filterOperators, filterParam, FILE_PARAMS, isSortable, EXPRESSION_OPERATORS, expressionOperatorsOf, MAX_IN_LENGTH, MAX_IN_VALUES, operatorsOf, refusedOperator, sortKeys } from './model.js'
export type { CollectionModel, FieldParam, ExpressionOperator } from './model.js'
export { parseListQuery } from './parse.js'
export { readFilterParam, readListOperator, splitList } from './filter.js'
export { FILTER_CACHE_SIZE, FilterCache } from './filter-cache.js'
export { ChangeFilter, recordTest } from './change-filter.js'
export { ChangeAccess } from './change-access.js'
export type { ListAnswer, ListRequest } from './parse.js'
export { QueryRefused } from './errors.js'
export type { QueryFailure, QueryRefusalCode, QueryRefusalOptions } from './errors.js'
export { decodeCursor, encodeCursor, sortText } from './cursor.js'
export { querystringSchema } from './schema.js'
export { EVERYTHING, nextLink, readPage, STREAM_FROM, storeQuery, streamsWhole } from './page.js'
export type { ListSource, Page } from './page.js'
export { csvColumns, recordStream } from './stream.js'
export type { RecordFormat, RecordStream, StreamWriters } from './stream.js'
export { CSV_TYPE, csvCell, csvHeader, csvRow } from './csv.js'
export { BACK_RELATION_CAP, CAPPED_MEMBER, expandRecords, MAX_EXPAND_DEPTH, MAX_EXPAND_LENGTH, parseExpand, relationsOf } from './expand.js'
export type { ExpandedRecord, ExpandNode, Relation, Relations, StoreOf } from './expand.js'
export { AGGREGATE_PARAMS, parseAggregateQuery } from './aggregate.js'
export type { AggregateRequest } from './aggregate.js'
