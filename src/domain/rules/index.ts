/**
 * Record rules (docs/rules.md): who may list, view, create, update and
 * delete which records of a collection, and which fields each caller sees.
 * Pure: compiled from a declaration's texts at start, evaluated per caller
 * into filter expressions (src/domain/filter/) the stores already answer.
 */
export { compileRule } from './compile.js'
export type { Allowance, Rule, RuleInput, RuleScope } from './compile.js'
export { bothAllowances, compileAccess, holds, NOTHING, ownerOf, restrictedFilter, RULE_OPERATIONS, RuleMistake, viewAllowed, visibleRecord, writeAllowed } from './access.js'
export type { AccessDeclaration, CollectionAccess, RuleOperation, RuleTexts, WriteSubject } from './access.js'
export { andAllowance, guardedAllowance, narrowedFilter, narrowedThrough } from './narrow.js'
export type { AccessOf, Narrowing } from './narrow.js'
