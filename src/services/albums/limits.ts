import {
  GraphQLError, Kind, NoSchemaIntrospectionCustomRule,
  type ASTVisitor, type SelectionSetNode, type ValidationContext, type ValidationRule
} from 'graphql'
import { GRAPHQL_CODES } from './codes.js'

// The codes live in a module of their own that loads no GraphQL (the routes need them at start); still named here.
export { GRAPHQL_CODES }

export interface QueryLimits {
  maxDepth: number
  maxFields: number
  maxAliases: number
}

/** Stops the walk as soon as one limit is passed, so a fragment "bomb" costs no more than the limit. */
class LimitExceeded extends Error {
  constructor (readonly code: string, readonly detail: string) { super(detail) }
}

/**
 * One rule for the three shape limits: depth, field count (the cost: each
 * selected field costs 1, counted after fragments are expanded, so spreading
 * one fragment many times costs what it returns) and aliases. Cycles are left
 * to the standard NoFragmentCyclesRule; here they are only skipped.
 */
export function queryLimitsRule (limits: QueryLimits): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition (operation) {
      const state = { fields: 0, aliases: 0 }
      const active = new Set<string>()
      const walk = (selectionSet: SelectionSetNode, depth: number): void => {
        if (depth > limits.maxDepth) {
          throw new LimitExceeded(GRAPHQL_CODES.tooDeep, `Query is too deep: the maximum depth is ${limits.maxDepth}.`)
        }
        for (const selection of selectionSet.selections) {
          if (selection.kind === Kind.FIELD) {
            if (++state.fields > limits.maxFields) {
              throw new LimitExceeded(GRAPHQL_CODES.tooManyFields, `Query selects too many fields: the maximum is ${limits.maxFields} (fragments counted once per use).`)
            }
            if (selection.alias !== undefined && ++state.aliases > limits.maxAliases) {
              throw new LimitExceeded(GRAPHQL_CODES.tooManyAliases, `Query uses too many aliases: the maximum is ${limits.maxAliases}.`)
            }
            if (selection.selectionSet !== undefined) walk(selection.selectionSet, depth + 1)
          } else if (selection.kind === Kind.INLINE_FRAGMENT) {
            walk(selection.selectionSet, depth)
          } else {
            const name = selection.name.value
            const fragment = context.getFragment(name)
            if (fragment == null || active.has(name)) continue
            active.add(name)
            walk(fragment.selectionSet, depth)
            active.delete(name)
          }
        }
      }
      try {
        walk(operation.selectionSet, 1)
      } catch (err) {
        if (!(err instanceof LimitExceeded)) throw err
        context.reportError(new GraphQLError(err.detail, { nodes: operation, extensions: { code: err.code } }))
      }
      return false // the operation's fields need no further visit by this rule
    }
  })
}

/** graphql-js's own introspection ban, with a clear `extensions.code` on its error. */
export const noIntrospectionRule: ValidationRule = (context) => {
  const coded = Object.create(context) as ValidationContext
  coded.reportError = (error: GraphQLError): void => {
    context.reportError(new GraphQLError(error.message, { nodes: error.nodes, extensions: { code: GRAPHQL_CODES.introspectionDisabled } }))
  }
  return NoSchemaIntrospectionCustomRule(coded)
}
