import type { FieldData, FieldValue, FilterOperator } from '../values.js'

/**
 * What every layer needs to know of one field kind (issue 28, item 1): a
 * kind is one module exporting a KindDefinition, registered in ./index.ts.
 * Data and pure functions only: the domain is the bottom layer, so GraphQL,
 * SQL drivers, Fastify and the browser each read these and build their own
 * objects from them.
 */

/** The JSON Schema types a declaration spells a field with. */
export type JsonType = 'string' | 'integer' | 'number' | 'boolean'

/** Limits a field's values keep, which its query parameters keep too. */
export interface ValueBounds {
  maxLength?: number
  min?: number
  max?: number
}

/** A value read from a query, cursor or GraphQL argument: the value, or the failure (catalogue code and rule after the name). */
export type ReadValue =
  | { value: FieldValue }
  | { code: 'FIELD_TYPE' | 'FIELD_TOO_LONG' | 'FIELD_OUT_OF_RANGE' | 'FIELD_INVALID_TEXT' | 'FIELD_INVALID', rule: string }

export interface KindDefinition {
  /**
   * How a declaration spells the kind: its JSON Schema type and, for a kind
   * that refines a type (date-time), the format that selects it. Undefined:
   * not declarable (the 64-bit ids of the `int64` id kind).
   */
  declaration?: {
    type: JsonType
    format?: string
    /** The keywords a field of this kind accepts besides type, description, title and examples. */
    keywords: readonly string[]
  }
  /** What a value is answered as, in JSON Schema (records, OpenAPI, the change feed). */
  represented: { type: JsonType | 'array' | 'object', format?: string }
  /**
   * The stored form of a value its schema admitted (bodies, import lines),
   * or undefined when it has none (out of the range the stores keep). Absent:
   * stored as sent.
   */
  canonical?: (value: unknown) => FieldData | undefined
  /**
   * Kinds whose stored values this one takes over at start, each converted
   * by `canonical` (a date-time field declared before it was a kind of its
   * own was kept as text); a value it cannot convert stops the start.
   */
  convertsFrom?: readonly string[]
  /**
   * How stored values order: `text` by Unicode code point, `number` by
   * value, `boolean` false before true. `folded` text also has a folded copy
   * (what `contains` and the search `q` read).
   */
  order: 'text' | 'number' | 'boolean' | 'none'
  folded: boolean
  /** The filter operators a field of this kind takes (`eq` is `field=value`). */
  operators: readonly FilterOperator[]
  /**
   * Set on the kinds whose values are JSON rather than one scalar (issue 29,
   * items 7 and 8): a list of scalars, a nested object, a free JSON object.
   * Their shape (a list's item kind, an object's fields) is the StoredField's,
   * not the kind's. Every store keeps them as JSON (SQLite JSON text,
   * PostgreSQL jsonb or json), none sorts by them (order `none`), and an
   * object's nested scalars are queried by dotted path (src/domain/paths.ts).
   */
  composite?: 'list' | 'object' | 'json'
  /** Its column on each store: the memory store's column class, SQLite's and PostgreSQL's column types. */
  storage: {
    memory: 'text' | 'number' | 'boolean' | 'value'
    sqlite: string
    postgres: string
  }
  query: {
    /** The JSON Schema of a filter value in a query string (ajv types it from text). */
    schema: (bounds: ValueBounds) => Record<string, unknown>
    /** What a value must be, for messages: "an integer from 1 to 500". */
    describe: (bounds: ValueBounds) => string
    /** A filter value typed by the query-string schema, as a condition compares it (REST). */
    fromQuery: (value: unknown) => FieldValue | undefined
    /** A filter value of a GraphQL argument, checked as REST checks the query string. */
    fromGraphql: (value: unknown, bounds: ValueBounds) => ReadValue
    /** A sort key value as a cursor carries it; undefined when no record could hold it. */
    fromCursor: (value: unknown, bounds: ValueBounds) => FieldValue | undefined
  }
  /** A CSV cell (never empty) as the field's value, or what is wrong with it after the field's name. */
  csv: (text: string) => { value: unknown } | { rule: string }
  /** The GraphQL scalar of its values (given its bounds): a built-in one, or one of its own. */
  graphql: (bounds: ValueBounds) => GraphqlScalar
  /** A plausible value for API examples, given the field's bounds and pattern; undefined when it has no obvious one. */
  sample: (bounds: ValueBounds) => unknown
  /** The web app's input and display of it. */
  app: { input: 'text' | 'integer' | 'decimal' | 'checkbox' | 'datetime' | 'list' | 'object' | 'json', numeric: boolean }
}

/**
 * A GraphQL scalar: one GraphQL or rqs has (SafeInt: integers beyond 32 bits,
 * ID: 64-bit ids as text), or a kind's own, with its description and how a
 * literal or variable is read (undefined: not one).
 */
export type GraphqlScalar =
  | { name: 'String' | 'Int' | 'SafeInt' | 'Float' | 'Boolean' | 'ID' }
  | { name: string, description: string, parse: (value: unknown) => FieldValue | undefined }
