import { JSON_SCALAR, jsonCell, NO_QUERY } from './composite.js'
import type { KindDefinition } from './definition.js'

/**
 * A nested object (issue 29, item 8): `{"type": "object", "properties": {…}}`
 * up to three levels, its fields the StoredField's `fields`. Kept as one JSON
 * value per top-level field (PostgreSQL jsonb, SQLite JSON text); its nested
 * scalars are filtered and sorted by dotted path (`address.city`), each read
 * in SQL by a JSON expression typed by its kind (src/domain/paths.ts).
 */
export const object: KindDefinition = {
  represented: { type: 'object' },
  composite: 'object',
  order: 'none',
  folded: false,
  operators: [],
  storage: { memory: 'value', sqlite: 'TEXT', postgres: 'jsonb' },
  query: NO_QUERY,
  csv: (text) => jsonCell(text, 'object'),
  graphql: () => JSON_SCALAR,
  sample: () => ({}),
  app: { input: 'object', numeric: false }
}

/**
 * Free JSON (issue 29, item 8): `{"type": "object", "additionalProperties":
 * true}` without properties keeps any JSON object as sent. PostgreSQL keeps it
 * in a `json` column (the text as written: member order and duplicates kept,
 * unlike jsonb), SQLite as JSON text, the memory store as parsed. Numbers are
 * kept exactly: a body's integers beyond ±2^53 − 1, which JSON parsing would
 * round, are refused (src/services/collections/composite.ts), and the text is
 * bounded (MAX_JSON_LENGTH there). Not filterable.
 */
export const json: KindDefinition = {
  represented: { type: 'object' },
  composite: 'json',
  order: 'none',
  folded: false,
  operators: [],
  storage: { memory: 'value', sqlite: 'TEXT', postgres: 'json' },
  query: NO_QUERY,
  csv: (text) => jsonCell(text, 'object'),
  graphql: () => JSON_SCALAR,
  sample: () => ({}),
  app: { input: 'json', numeric: false }
}
