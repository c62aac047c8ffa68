/**
 * The filter language (issue 31, item 4): text → syntax tree (./syntax.ts) →
 * checked expression (./check.ts) → a memory predicate (./predicate.ts) or
 * SQL (src/stores/sql-query.ts). It sits in the domain so that every layer
 * above (lists, the change feed, filtered writes) reads one language.
 */
export { FilterError, MAX_FILTER_COMPARISONS, MAX_FILTER_DEPTH, MAX_FILTER_LENGTH, parseFilter, parseRule } from './syntax.js'
export type { Literal, Operand, RuleComparison, RuleSyntax, SyntaxComparison, SyntaxNode, SyntaxOperator, Tree } from './syntax.js'
export { checkFilter, readLiteral } from './check.js'
export type { FilterField, FilterFields } from './check.js'
export { allOf, fieldsOf, liftConditions } from './tree.js'
export type { Comparison, FilterExpr } from './tree.js'
export { expressionTest } from './predicate.js'
