import { ORDER_OPERATORS } from './operators.js'
import type { KindDefinition } from './definition.js'

/**
 * An instant (issue 29, item 1): `{"type": "string", "format": "date-time"}`,
 * RFC 3339 with any offset, kept and answered as UTC text of fixed width,
 * `YYYY-MM-DDTHH:MM:SS.sssZ` (milliseconds; finer digits are dropped). Text of
 * one width and one offset orders as the instants do, so every store
 * compares, sorts and pages it as plain text (SQLite TEXT, PostgreSQL text
 * COLLATE "C", the memory store's code-point order), with no conversion in
 * SQL and no timestamptz to keep in step with the other stores.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/
/** The canonical form: what the stores hold and clients get back. */
const CANONICAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** The canonical UTC text of an RFC 3339 date-time, or undefined when it is none or falls outside the years 0000–9999. */
export function canonicalInstant (text: string): string | undefined {
  const m = RFC3339.exec(text)
  if (m === null) return undefined
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]))
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3))
  const offset = m[8] !== undefined ? 0 : (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]))
  if (month! < 1 || month! > 12 || day! < 1 || hour! > 23 || minute! > 59 || second! > 59 || Number(m[10] ?? 0) > 23 || Number(m[11] ?? 0) > 59) return undefined
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0–99 as 1900–1999.
  const date = new Date(0)
  date.setUTCFullYear(year!, month! - 1, day!)
  if (date.getUTCMonth() !== month! - 1) return undefined // 31 April and the like
  date.setUTCHours(hour!, minute! - offset, second!, ms)
  const iso = date.toISOString()
  return CANONICAL.test(iso) ? iso : undefined
}

const read = (value: unknown): string | undefined => typeof value === 'string' ? canonicalInstant(value) : undefined
const RULE = 'must be a date-time as RFC 3339 has it, e.g. 2024-05-01T09:00:00+02:00, from the years 0000 to 9999 in UTC'

export const dateTime: KindDefinition = {
  declaration: { type: 'string', format: 'date-time', keywords: ['format'] },
  represented: { type: 'string', format: 'date-time' },
  canonical: read,
  convertsFrom: ['string'],
  order: 'text',
  folded: false,
  operators: ORDER_OPERATORS,
  storage: { memory: 'value', sqlite: 'TEXT', postgres: 'text' },
  query: {
    schema: () => ({ type: 'string', format: 'date-time', maxLength: 64 }),
    describe: () => 'a date-time (RFC 3339, e.g. 2024-05-01T09:00:00Z)',
    fromQuery: read,
    fromGraphql: (value) => {
      const instant = read(value)
      return instant === undefined ? { code: 'FIELD_INVALID', rule: RULE } : { value: instant }
    },
    // Cursors carry the canonical form only: it is what a page's last record held.
    fromCursor: (value) => typeof value === 'string' && CANONICAL.test(value) && read(value) === value ? value : undefined
  },
  csv: (text) => {
    const instant = canonicalInstant(text)
    return instant === undefined ? { rule: `${RULE}, not "${text.slice(0, 80)}"` } : { value: instant }
  },
  graphql: () => ({
    name: 'DateTime',
    description: 'An instant as RFC 3339 text. Given with any offset; answered in UTC to the millisecond (`2024-05-01T07:00:00.000Z`).',
    parse: read
  }),
  sample: () => '2024-05-01T12:00:00.000Z',
  app: { input: 'datetime', numeric: false }
}
