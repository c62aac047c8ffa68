import type { Ajv } from 'ajv'
import { KIND_NAMES, KINDS, type Kind } from '../../domain/index.js'

/**
 * `x-rqs-kind`: the JSON Schema keyword that turns a body's (or an import
 * line's) value of a field into its kind's stored form as it is validated,
 * e.g. a date-time with any offset into UTC (src/domain/kinds/date-time.ts).
 * Every writer checks its bodies with these schemas (REST, GraphQL's
 * mutations, `rqs import`), so each stores the same value for the same
 * input. A value the kind cannot keep fails validation like any other rule.
 * Only fields whose kind has a stored form of its own carry the keyword.
 */
export const KIND_KEYWORD = 'x-rqs-kind'

/** The keyword of a field of `kind`, if its values are stored in a form of their own. */
export function kindKeyword (kind: Kind): Record<string, string> {
  return KINDS[kind].canonical === undefined ? {} : { [KIND_KEYWORD]: kind }
}

export function addKindKeyword (ajv: Ajv): void {
  ajv.addKeyword({
    keyword: KIND_KEYWORD,
    schemaType: 'string',
    modifying: true,
    errors: false,
    metaSchema: { enum: KIND_NAMES },
    validate: (kind: Kind, data: unknown, _schema?: unknown, context?: { parentData: Record<string | number, unknown>, parentDataProperty: string | number }) => {
      const canonical = KINDS[kind].canonical
      // null passes: whether the field takes it is the type keyword's to say.
      if (canonical === undefined || data === null) return true
      const value = canonical(data)
      if (value === undefined) return false
      if (context !== undefined) context.parentData[context.parentDataProperty] = value
      return true
    }
  })
}
