import { compileAccess, KINDS, nestedScalars, RULE_OPERATIONS, RuleMistake, type AccessDeclaration, type CollectionAccess, type CollectionDeclaration, type FilterField, type RuleOperation, type RuleTexts } from '../../domain/index.js'
import { closestWord } from '../../lib/suggest.js'
import { ConfigError, type RulesConfig } from '../../config.js'

/**
 * A collection's access as declared (docs/rules.md): `"rules"` beside its
 * schema, `"x-owner": true` and `"x-read": "<expression>"` on its fields,
 * compiled and checked at start like the rest of a declaration: a mistake
 * stops the start with its JSON path and its position in the expression.
 */

/** The keywords of a field that concern access. */
export const ACCESS_KEYWORDS = ['x-owner', 'x-read']

type Fail = (path: string, message: string) => never

/** `"rules": {"list": "…", …}` of a collection at `path`: each a string. */
export function ruleTextsOf (path: string, value: unknown, fail: Fail): RuleTexts | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, `must be an object of rules by operation (${RULE_OPERATIONS.join(', ')}), e.g. {"update": "owner = @request.auth.sub"}`)
  const texts: RuleTexts = {}
  for (const [operation, text] of Object.entries(value)) {
    if (!(RULE_OPERATIONS as readonly string[]).includes(operation)) {
      const guess = closestWord(operation, RULE_OPERATIONS)
      fail(`${path}.${operation}`, `"${operation}" is no operation${guess === undefined ? '' : `; did you mean "${guess}"?`} (rules: ${RULE_OPERATIONS.join(', ')})`)
    }
    if (typeof text !== 'string') fail(`${path}.${operation}`, `must be an expression in a string ("" lets anyone through whom the scopes let through), got ${JSON.stringify(text)}`)
    texts[operation as RuleOperation] = text
  }
  return texts
}

/** The owner field and the `x-read` expressions of a collection's fields (`properties` as declared, at `path`). */
export function fieldAccessOf (path: string, properties: Readonly<Record<string, unknown>>, required: readonly string[], fail: Fail): Pick<AccessDeclaration, 'owner' | 'read'> {
  let owner: string | undefined
  const read: Record<string, string> = {}
  for (const [field, schema] of Object.entries(properties)) {
    const declared = schema as Record<string, unknown>
    const fieldPath = `${path}.${field}`
    if (declared['x-owner'] !== undefined) {
      if (declared['x-owner'] !== true) fail(`${fieldPath}.x-owner`, 'may only be true: the field then holds the subject of whoever created the record')
      if (declared.type !== 'string' || declared.format !== undefined) fail(`${fieldPath}.x-owner`, 'applies to a plain text field only: {"type": "string", "x-owner": true}')
      if (required.includes(field)) fail(`${fieldPath}.x-owner`, 'the server sets this field from the caller, so a client need not send it: leave it out of "required"')
      if (declared.default !== undefined) fail(`${fieldPath}.x-owner`, 'an owner field takes no default: the server sets it from the caller')
      if (owner !== undefined) fail(`${fieldPath}.x-owner`, `a collection has one owner field, and ${owner} is it`)
      owner = field
    }
    if (declared['x-read'] !== undefined) {
      if (typeof declared['x-read'] !== 'string') fail(`${fieldPath}.x-read`, `must be an expression in a string, e.g. "owner = @request.auth.sub", got ${JSON.stringify(declared['x-read'])}`)
      read[field] = declared['x-read']
    }
  }
  return { ...(owner === undefined ? {} : { owner }), ...(Object.keys(read).length === 0 ? {} : { read }) }
}

/**
 * Compiles the access of a declaration (none when nothing is declared);
 * a mistake fails at `rules.<operation>` or at the field's `x-read` with
 * the position in the expression.
 */
export function accessOf (path: string, schemaPath: string, declared: AccessDeclaration, declaration: CollectionDeclaration, fail: Fail): CollectionAccess | undefined {
  if (declared.rules === undefined && declared.owner === undefined && declared.read === undefined) return undefined
  try {
    return compileAccess(declared, ruleFields(declaration))
  } catch (err) {
    if (!(err instanceof RuleMistake)) throw err
    const where = 'operation' in err.where ? `${path}.rules.${err.where.operation}` : `${schemaPath}.properties.${err.where.field}.x-read`
    fail(where, `${err.error.reason} (at ${err.error.at} in the expression)`)
  }
}

/** The fields a rule may name: the id, every field, and the scalars inside objects by dotted path. */
export function ruleFields (declaration: CollectionDeclaration): Record<string, FilterField> {
  const fields: Record<string, FilterField> = { id: { kind: declaration.ids === 'uuid' ? 'string' : declaration.ids === 'int64' ? 'int64' : 'integer' } }
  for (const [name, field] of Object.entries(declaration.fields)) fields[name] = field.items === undefined ? { kind: field.type } : { kind: field.type, items: field.items }
  // A text inside an object has no folded copy: compared with = and != only (as a filter compares it).
  for (const nested of nestedScalars(declaration.fields)) fields[nested.path] = { kind: nested.kind, operators: KINDS[nested.kind].operators.filter((op) => op !== 'contains') }
  return fields
}

/**
 * The declarations with the rules the configuration file gives the built-in
 * collections (`"rules": {"students": {…}}`, src/config/rules.ts) compiled
 * into them; a mistake is a ConfigError at `rules.<collection>.<operation>`
 * with its position. Without any: the same declarations, untouched.
 */
export function withConfiguredRules (declarations: CollectionDeclaration[], rules: RulesConfig | undefined): CollectionDeclaration[] {
  const configured = rules?.collections ?? {}
  if (Object.keys(configured).length === 0) return declarations
  return declarations.map((declaration) => {
    const texts = Object.hasOwn(configured, declaration.name) ? configured[declaration.name] : undefined
    if (texts === undefined) return declaration
    // The count id rule lets a create replace the record held at its id: that would write past the update and delete rules.
    if (declaration.ids === 'count' && (texts.update !== undefined || texts.delete !== undefined)) {
      throw new ConfigError(`${rules?.source ?? 'the configuration'}: rules.${declaration.name}: under the count id rule a create may replace the record held at its id, past the update and delete rules: give ${declaration.name} ids that are never reused (--student-ids sequence)`)
    }
    try {
      return { ...declaration, access: compileAccess({ rules: texts }, ruleFields(declaration)) }
    } catch (err) {
      if (!(err instanceof RuleMistake) || !('operation' in err.where)) throw err
      throw new ConfigError(`${rules?.source ?? 'the configuration'}: rules.${declaration.name}.${err.where.operation}: ${err.error.reason} (at ${err.error.at} in the expression)`)
    }
  })
}
