import type { KindDefinition } from './definition.js'

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
  csv: (text) => text === 'true' ? { value: true } : text === 'false' ? { value: false } : { rule: `must be true or false, not "${text}"` },
  graphql: () => ({ name: 'Boolean' }),
  sample: () => true,
  app: { input: 'checkbox', numeric: false }
}
