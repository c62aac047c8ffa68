import type { KindDefinition } from './definition.js'

/** The accepted spellings of a boolean CSV cell, for messages and docs. */
export const BOOLEAN_FORMS = 'true or false (in any case), 1 or 0'

/** true or false; ordered false before true; filtered by equality only. SQLite keeps 0/1 (it has no boolean). */
export const boolean: KindDefinition = {
  declaration: { type: 'boolean', keywords: [] },
  represented: { type: 'boolean' },
  order: 'boolean',
  folded: false,
  operators: ['eq'],
  storage: { memory: 'boolean', sqlite: 'INTEGER', postgres: 'boolean' },
  query: {
    schema: () => ({ type: 'boolean' }),
    describe: () => 'true or false',
    fromQuery: (value) => value as boolean,
    fromGraphql: (value) => ({ value: value as boolean }),
    fromCursor: (value) => typeof value === 'boolean' ? value : undefined
  },
  // Any case (Excel writes TRUE) and 1/0; nothing else (`yes`, `ja`, ` true`) is ever read as false.
  csv: (text) => {
    const folded = text.toLowerCase()
    if (folded === 'true' || folded === '1') return { value: true }
    if (folded === 'false' || folded === '0') return { value: false }
    return { rule: `must be ${BOOLEAN_FORMS}, not "${text}"` }
  },
  graphql: () => ({ name: 'Boolean' }),
  sample: () => true,
  app: { input: 'checkbox', numeric: false }
}
