import { OptionalKind, Type, type TSchema } from '@sinclair/typebox'
import { STORABLE_TEXT_PATTERN } from '../lib/storable-text.js'
import { KINDS, MAX_FILTER_LENGTH, type FilterOperator } from '../domain/index.js'
import {
  EXPRESSION_PARAM, filterParam, isSortable, expressionOperatorsOf, MAX_CURSOR_LENGTH, MAX_IN_LENGTH, MAX_IN_VALUES, MAX_SEARCH_LENGTH, MAX_SORT_LENGTH, operatorsOf,
  type CollectionModel, type FieldParam, type ExpressionOperator
} from './model.js'

const OPERATOR_TEXT: Record<FilterOperator, string> = {
  eq: 'equal to',
  ne: 'not equal to',
  gt: 'greater than',
  gte: 'greater than or equal to',
  lt: 'less than',
  lte: 'less than or equal to',
  contains: 'containing, ignoring case,',
  has: 'a list holding',
  hasAny: 'a list holding any of (separated by commas)'
}

function valueSchema (field: string, param: FieldParam, op: FilterOperator): TSchema {
  const kind = KINDS[param.kind]
  const order = kind.folded ? ' (text compares by Unicode code point; contains ignores case)' : ''
  const description = `Only records whose ${field} is ${OPERATOR_TEXT[op]} this value${order}. ${param.description}`
  const { description: note, ...schema } = kind.query.schema(param)
  // A bound the field does not have is no keyword (ajv refuses `minimum: undefined`).
  const keywords = Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined))
  return Type.Unsafe({ ...keywords, description: typeof note === 'string' ? `${description} ${note}` : description })
}

/** The schema of a list operator's parameter (`year[in]`): the list's text, the prefix, or true/false. */
function listSchema (field: string, param: FieldParam, op: ExpressionOperator): TSchema {
  switch (op) {
    case 'in':
    case 'nin':
      return Type.String({
        maxLength: MAX_IN_LENGTH,
        description: `Only records whose ${field} is ${op === 'in' ? 'one' : 'set and none'} of these values, separated by commas (at most ${MAX_IN_VALUES}; \\, is a comma within a value, \\\\ a backslash). ${param.description}`
      })
    case 'startsWith': return Type.String({
      ...(param.maxLength === undefined ? {} : { maxLength: param.maxLength }),
      pattern: STORABLE_TEXT_PATTERN,
      description: `Only records whose ${field} starts with this text, ignoring case as \`[contains]\` does. ${param.description}`
    })
    case 'null': return Type.Boolean({ description: `\`true\`: only records without ${field}; \`false\`: only records with it.` })
  }
}

/**
 * The query string of a collection as a JSON schema: it documents every
 * parameter in OpenAPI and types their values (ajv coerces them from text; a
 * wrong value is VALIDATION_FAILED naming `querystring.<param>`). It leaves
 * other parameters in place, so the parser can refuse them by name.
 */
export function querystringSchema (model: CollectionModel): TSchema {
  const sortable = Object.entries(model.fields).filter(([, param]) => isSortable(param as FieldParam)).map(([field]) => field)
  const properties: Record<string, TSchema> = {
    // No default and no page maximum here: both belong to a JSON page, and the parser applies them
    // (./parse.ts); an NDJSON or CSV stream holds every matching record unless `limit` caps it (issue 19).
    limit: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: (model.defaultLimit === undefined
        ? `Page size (1–${model.maxLimit}). Without it the answer holds every matching record, as the spec's list does; with it, a page and a \`next\` link.`
        : `Page size (1–${model.maxLimit}, default ${model.defaultLimit}).`) +
        ' With `Accept: application/x-ndjson` it caps the stream instead (any positive number), as with `text/csv`; a stream without it holds every matching record.'
    }),
    cursor: Type.String({ maxLength: MAX_CURSOR_LENGTH, description: 'Opaque position from a `next` link: follow the link unchanged rather than building cursors.' }),
    sort: Type.String({
      maxLength: MAX_SORT_LENGTH,
      description: `Sort keys, comma-separated, from ${sortable.join(', ')}; \`-\` before a field sorts it descending. Ties are broken by id, in the direction of the last sort key. Example: \`${exampleSort(model)}\`.`
    }),
    q: Type.String({ maxLength: MAX_SEARCH_LENGTH, pattern: STORABLE_TEXT_PATTERN, description: 'Only records with this text in any text field, ignoring case.' }),
    [EXPRESSION_PARAM]: Type.String({
      maxLength: MAX_FILTER_LENGTH,
      description: 'A filter expression, ANDed with the other filters: comparisons (`=`, `!=`, `<`, `<=`, `>`, `>=`, `~` contains and `!~` lacks text, ignoring case; `= null` for an unset field) joined by `&&`, `||`, `!` and parentheses, e.g. `(year < 1900 || year >= 2000) && title ~ \'dune\'`. Grammar and limits: docs/collections.md.'
    }),
    count: Type.Boolean({ description: '`true` adds `X-Total-Count`: how many records match the filters, whatever the page.' }),
    // For spreadsheets (issue 37): the answer as a file to save, and the byte order mark Excel needs to read UTF-8.
    download: Type.Boolean({ description: 'With `Accept: text/csv` or `application/x-ndjson`, `true` adds `Content-Disposition: attachment; filename="<collection>.csv"` (`.ndjson`): a browser saves the answer as a file. No effect on a JSON page.' }),
    bom: Type.Boolean({ description: 'With `Accept: text/csv`, `true` starts the file with a UTF-8 byte order mark, which Excel needs to read accented letters right. No effect on other formats.' })
  }
  for (const [field, param] of Object.entries(model.fields) as Array<[string, FieldParam]>) {
    for (const op of operatorsOf(param)) properties[filterParam(field, op)] = valueSchema(field, param, op)
    for (const op of expressionOperatorsOf(param)) properties[`${field}[${op}]`] = listSchema(field, param, op)
  }
  return everyPropertyOptional(properties)
}

/**
 * `Type.Partial(Type.Object(properties))` for properties made by the caller and used nowhere else: each is
 * marked optional where it is, not copied (a collection at the declaration limits has thousands of
 * parameters, and copying each was ≈ 5 % of such a start). The same schema, key for key.
 */
function everyPropertyOptional (properties: Record<string, TSchema>): TSchema {
  for (const schema of Object.values(properties)) (schema as TSchema & { [OptionalKind]?: string })[OptionalKind] = 'Optional'
  return Type.Object(properties)
}

function exampleSort (model: CollectionModel): string {
  const [first, second] = Object.entries(model.fields).filter(([f, param]) => f !== 'id' && isSortable(param as FieldParam)).map(([f]) => f)
  return second === undefined ? `-${first ?? 'id'}` : `${first as string},-${second}`
}
