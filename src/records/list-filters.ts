import { KINDS, type FieldValue, type Kind } from '../domain/index.js'

/** The most values one `hasAny` may name. */
export const MAX_HAS_ANY = 50

/**
 * The values of a list filter (issue 29, item 7) as its items' kind reads
 * them: `tags[has]=x` one, `tags[hasAny]=a,b` several separated by commas
 * (each read as a CSV cell of the item kind is, so `3` is a number for a list
 * of integers). A value the kind cannot read is what is wrong with it.
 */
export function listValues (items: Kind, text: string, many: boolean): { values: FieldValue[] } | { rule: string } {
  const parts = many ? text.split(',') : [text]
  if (parts.length > MAX_HAS_ANY) return { rule: `must name at most ${MAX_HAS_ANY} values` }
  const values: FieldValue[] = []
  for (const part of parts) {
    if (part === '') return { rule: 'must not hold an empty value' }
    const read = KINDS[items].csv(part)
    if ('rule' in read) return { rule: read.rule }
    values.push(KINDS[items].canonical?.(read.value) as FieldValue ?? read.value as FieldValue)
  }
  return { values }
}
