import { RULE_OPERATIONS, type Caller, type CollectionAccess, type FilterExpr, type RuleOperation } from '../../domain/index.js'

/**
 * Which operations of a collection with rules (docs/rules.md) a caller may
 * attempt, as GET /collections tells it per caller (the web app hides the
 * actions left out): an operation is left out when the caller's scopes
 * refuse it, or when its rule can hold for no record of this caller (it
 * compiles to false for them, e.g. `owner = @request.auth.sub` for an
 * anonymous caller). A rule that reads the values sent may hold for some
 * body: it stays in. What is listed may still be refused for one record.
 */
export function attemptable (access: CollectionAccess, caller: Caller, scopes: { write: boolean }): RuleOperation[] {
  return RULE_OPERATIONS.filter((operation) => {
    if (operation !== 'list' && operation !== 'view' && !scopes.write) return false
    if (!access.has(operation) || (access.rules[operation] ?? '').includes('@request.body')) return true
    return access.allowance(operation, caller) !== false
  })
}

/**
 * The records of which a caller may attempt an update or a delete, as the
 * filter expression its rule becomes for them (the caller's subject and
 * roles put in), for operations whose rule depends on the record: the web
 * app tests each row with it and offers Edit and Delete only where it holds.
 * Left out: a rule that holds for every record, or reads the values sent,
 * or whose expression is not plain JSON (64-bit values).
 */
export function recordConditions (access: CollectionAccess, caller: Caller): Partial<Record<'update' | 'delete', FilterExpr>> {
  const conditions: Partial<Record<'update' | 'delete', FilterExpr>> = {}
  for (const operation of ['update', 'delete'] as const) {
    if (!access.has(operation) || (access.rules[operation] ?? '').includes('@request.body')) continue
    const allowance = access.allowance(operation, caller)
    if (typeof allowance === 'boolean' || safeJson(allowance) === undefined) continue
    conditions[operation] = allowance
  }
  return conditions
}

/** The JSON of a value, or undefined when it holds a 64-bit integer. */
function safeJson (value: unknown): string | undefined {
  try { return JSON.stringify(value) } catch { return undefined }
}
