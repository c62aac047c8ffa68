import { isStorableText, STORABLE_TEXT_PATTERN, STORABLE_TEXT_RULE } from '../../lib/storable-text.js'
import { BRACKET_OPERATORS } from './operators.js'
import type { KindDefinition } from './definition.js'

/** Text, compared by Unicode code point; `contains` and the search compare its folded copy. */
export const string: KindDefinition = {
  declaration: { type: 'string', keywords: ['minLength', 'maxLength', 'pattern', 'enum', 'format'] },
  represented: { type: 'string' },
  order: 'text',
  folded: true,
  operators: ['eq', ...BRACKET_OPERATORS],
  storage: { memory: 'text', sqlite: 'TEXT', postgres: 'text' },
  query: {
    // No U+0000 or lone surrogate: no record holds one (issue 10), and PostgreSQL refuses U+0000 even in a comparison.
    schema: (b) => ({ type: 'string', maxLength: b.maxLength, pattern: STORABLE_TEXT_PATTERN }),
    describe: (b) => `text of at most ${b.maxLength ?? 0} characters`,
    fromQuery: (value) => value as string,
    fromGraphql: (value, b) => {
      const text = String(value)
      if (b.maxLength !== undefined && text.length > b.maxLength) return { code: 'FIELD_TOO_LONG', rule: `must NOT have more than ${b.maxLength} characters` }
      if (!isStorableText(text)) return { code: 'FIELD_INVALID_TEXT', rule: STORABLE_TEXT_RULE }
      return { value: text }
    },
    // Text no record can hold (U+0000, an unpaired surrogate) was never issued; PostgreSQL cannot even compare with it.
    fromCursor: (value, b) => typeof value === 'string' && (b.maxLength === undefined || value.length <= b.maxLength) && isStorableText(value) ? value : undefined
  },
  csv: (text) => ({ value: text }),
  graphql: () => ({ name: 'String' }),
  sample: () => undefined,
  app: { input: 'text', numeric: false }
}
