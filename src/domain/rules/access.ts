import { fold } from '../case-fold.js'
import type { Caller } from '../caller.js'
import type { FilterFields } from '../filter/check.js'
import { expressionTest } from '../filter/predicate.js'
import { FilterError } from '../filter/syntax.js'
import type { FilterExpr } from '../filter/tree.js'
import { allOfAllowances, compileRule, type Allowance, type Rule } from './compile.js'

/**
 * Who may see and change which records of one collection (docs/rules.md):
 * its five rules, its owner field and the fields only some callers see,
 * compiled once at start. Every interface (REST, GraphQL, the change feed)
 * asks this one object, so they decide alike.
 */

export const RULE_OPERATIONS = ['list', 'view', 'create', 'update', 'delete'] as const
export type RuleOperation = (typeof RULE_OPERATIONS)[number]

/** The rules as declared: an absent one keeps the scope check alone, `""` lets anyone through whom the scopes let through. */
export type RuleTexts = Partial<Record<RuleOperation, string>>

/** What a collection declares about access. */
export interface AccessDeclaration {
  rules?: RuleTexts
  /** The field that holds the creator's subject (`"x-owner": true`). */
  owner?: string
  /** `"x-read": "<expression>"` of each field that has one. */
  read?: Readonly<Record<string, string>>
}

/** A rule with a mistake: which (an operation's rule, or a field's `x-read`) and the mistake with its position. */
export class RuleMistake extends Error {
  override name = 'RuleMistake'
  constructor (readonly where: { operation: RuleOperation } | { field: string }, readonly error: FilterError) {
    super(error.message)
  }
}

/** The filter that holds for no record: what a list reads when its rule allows the caller nothing. */
export const NOTHING: FilterExpr = { op: 'in', field: 'id', values: [] }

export interface CollectionAccess {
  /** The rules as declared. */
  readonly rules: RuleTexts
  /** The owner field, if any. */
  readonly owner?: string
  /** Fields with an `x-read` expression. */
  readonly guarded: readonly string[]
  /** Whether the operation has a rule (a cache of answers shared by all callers is then not for this operation). */
  has: (operation: RuleOperation) => boolean
  /** What the operation's rule allows this caller (and these values sent): an admin and an absent rule allow everything. */
  allowance: (operation: RuleOperation, caller: Caller, body?: Readonly<Record<string, unknown>>) => Allowance
  /** Where a guarded field's `x-read` holds for this caller (true for any other field): a filter, sort or aggregate that names it is narrowed to those records. */
  readAllowance: (field: string, caller: Caller) => Allowance
  /** The record without the fields whose `x-read` does not hold for this caller (the same object when none is left out). */
  visibleRecord: <R extends object>(record: R, caller: Caller) => R
}

/**
 * Compiles a collection's rules against its fields (`fields`: the filter's
 * view of them, `id` included), or throws RuleMistake at the first mistake.
 */
export function compileAccess (declared: AccessDeclaration, fields: FilterFields): CollectionAccess {
  const rules: Partial<Record<RuleOperation, Rule>> = {}
  for (const operation of RULE_OPERATIONS) {
    const text = declared.rules?.[operation]
    if (text === undefined) continue
    try {
      rules[operation] = compileRule(text, fields, { body: operation === 'create' || operation === 'update' })
    } catch (err) {
      if (err instanceof FilterError) throw new RuleMistake({ operation }, err)
      throw err
    }
  }
  const reads: Array<[string, Rule]> = []
  for (const [field, text] of Object.entries(declared.read ?? {})) {
    try {
      reads.push([field, compileRule(text, fields, { body: false })])
    } catch (err) {
      if (err instanceof FilterError) throw new RuleMistake({ field }, err)
      throw err
    }
  }
  const allowance = (operation: RuleOperation, caller: Caller, body?: Readonly<Record<string, unknown>>): Allowance => {
    const rule = rules[operation]
    if (rule === undefined || caller.admin) return true
    return rule(body === undefined ? { caller } : { caller, body })
  }
  const visibleRecord = <R extends object>(record: R, caller: Caller): R => {
    if (reads.length === 0 || caller.admin) return record
    let visible: Record<string, unknown> | undefined
    for (const [field, rule] of reads) {
      if (!Object.hasOwn(record, field) || holds(rule({ caller }), record)) continue
      visible ??= { ...record } as Record<string, unknown>
      Reflect.deleteProperty(visible, field)
    }
    return (visible ?? record) as R
  }
  return {
    rules: { ...declared.rules },
    ...(declared.owner === undefined ? {} : { owner: declared.owner }),
    guarded: reads.map(([field]) => field),
    has: (operation) => rules[operation] !== undefined,
    allowance,
    readAllowance: (field, caller) => {
      if (caller.admin) return true
      const rule = reads.find(([name]) => name === field)?.[1]
      return rule === undefined ? true : rule({ caller })
    },
    visibleRecord
  }
}

/** Whether an allowance holds for one record (evaluated in memory, with the stores' meanings). */
export function holds (allowance: Allowance, record: object): boolean {
  if (typeof allowance === 'boolean') return allowance
  return expressionTest(allowance, foldedField)(record as Record<string, never>)
}

function foldedField (record: object, field: string): string {
  const value = (record as Record<string, unknown>)[field]
  return typeof value === 'string' ? fold(value) : ''
}

/** A query's filter with an allowance ANDed: undefined for no filter at all, NOTHING when the allowance is false. */
export function restrictedFilter (expression: FilterExpr | undefined, allowance: Allowance): FilterExpr | undefined {
  if (allowance === true) return expression
  if (allowance === false) return NOTHING
  return expression === undefined ? allowance : { op: 'and', items: [expression, allowance] }
}

/** Several allowances ANDed (a write checked against the stored record and the values sent). */
export function bothAllowances (...items: Allowance[]): Allowance {
  return allOfAllowances(items)
}

/** The record as this caller may see it (the same object when the collection has no `x-read`); no access declared: the record. */
export function visibleRecord<R extends object> (access: CollectionAccess | undefined, record: R, caller: Caller): R {
  return access === undefined ? record : access.visibleRecord(record, caller)
}

/** What a write's rule is checked against: the record held before (update, delete), the record it writes (create, update), the values sent. */
export interface WriteSubject {
  stored?: object
  written?: object
  body?: Readonly<Record<string, unknown>>
}

/**
 * Whether a write passes its collection's rule: a create is checked against
 * the record it would write, an update against the stored record and the
 * record it would write (so neither a record out of reach is changed nor
 * one moved out of reach), a delete against the stored record.
 */
export function writeAllowed (access: CollectionAccess | undefined, operation: 'create' | 'update' | 'delete', caller: Caller, subject: WriteSubject): boolean {
  if (access === undefined || !access.has(operation) || caller.admin) return true
  const allowance = access.allowance(operation, caller, subject.body)
  if (typeof allowance === 'boolean') return allowance
  if (operation !== 'create' && subject.stored !== undefined && !holds(allowance, subject.stored)) return false
  if (operation !== 'delete' && subject.written !== undefined && !holds(allowance, subject.written)) return false
  return true
}

/** Whether the caller may view this record (the view rule); the list rule decides what lists hold. */
export function viewAllowed (access: CollectionAccess | undefined, caller: Caller, record: object): boolean {
  if (access === undefined || !access.has('view') || caller.admin) return true
  return holds(access.allowance('view', caller), record)
}

/**
 * The owner field's value a write may hold (`x-owner`): a create's is the
 * caller's subject, an update's the stored one. Answers the value to write
 * (undefined: leave the field unset), or `mismatch` when the body sends
 * another; an admin may set any owner.
 */
export function ownerOf (access: CollectionAccess | undefined, caller: Caller, body: Readonly<Record<string, unknown>>, stored?: object): { owner?: string, value?: string } | 'mismatch' {
  const field = access?.owner
  if (field === undefined) return {}
  const sent = body[field]
  const held = stored === undefined ? caller.sub : (stored as Record<string, unknown>)[field] as string | undefined
  if (caller.admin && stored === undefined && typeof sent === 'string') return { owner: field, value: sent }
  if (sent !== undefined && sent !== null && sent !== held) return 'mismatch'
  return held === undefined ? { owner: field } : { owner: field, value: held }
}
