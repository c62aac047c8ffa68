import { JSON_SCALAR, jsonCell, NO_QUERY } from './composite.js'
import type { KindDefinition } from './definition.js'
import { LIST_FILTERS } from './operators.js'

/**
 * A list of scalars (issue 29, item 7): `{"type": "array", "items": {<a
 * scalar kind>}, "maxItems": n, "uniqueItems": true}`. The item kind is the
 * StoredField's `items`. Kept as a JSON array (PostgreSQL jsonb, SQLite JSON
 * text), filtered by `has` and `hasAny`, never sorted.
 */
export const list: KindDefinition = {
  represented: { type: 'array' },
  composite: 'list',
  order: 'none',
  folded: false,
  operators: LIST_FILTERS,
  storage: { memory: 'value', sqlite: 'TEXT', postgres: 'jsonb' },
  query: NO_QUERY,
  csv: (text) => jsonCell(text, 'array'),
  graphql: () => JSON_SCALAR,
  sample: () => [],
  app: { input: 'list', numeric: false }
}
