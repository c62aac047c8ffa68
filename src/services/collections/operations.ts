import { RULE_OPERATIONS, type Caller, type CollectionAccess, type RuleOperation } from '../../domain/index.js'

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
