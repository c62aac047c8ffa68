import {
  GraphQLError, Kind, NoSchemaIntrospectionCustomRule,
  type ASTVisitor, type SelectionSetNode, type ValidationContext, type ValidationRule
} from 'graphql'
import type { ErrorCode } from '../../http/errors/index.js'
/** `extensions.code` of every error this service produces, so clients can branch on it; all in the catalogue. */
export const GRAPHQL_CODES = {
  parseFailed: 'GRAPHQL_PARSE_FAILED',
  validationFailed: 'GRAPHQL_VALIDATION_FAILED',
  tooDeep: 'QUERY_TOO_DEEP',
  tooManyFields: 'QUERY_TOO_COMPLEX',
  tooManyAliases: 'TOO_MANY_ALIASES',
  tooCostly: 'QUERY_TOO_COSTLY',
  tooLarge: 'QUERY_TOO_LARGE',
  introspectionDisabled: 'INTROSPECTION_DISABLED',
  badRequest: 'BAD_REQUEST',
  badUserInput: 'BAD_USER_INPUT',
  operationNotSupported: 'OPERATION_NOT_SUPPORTED',
  methodNotAllowed: 'METHOD_NOT_ALLOWED',
  unsupportedMediaType: 'UNSUPPORTED_MEDIA_TYPE',
  unsupportedContentEncoding: 'UNSUPPORTED_CONTENT_ENCODING',
  notAcceptable: 'NOT_ACCEPTABLE',
  payloadTooLarge: 'PAYLOAD_TOO_LARGE',
  internal: 'INTERNAL_SERVER_ERROR',
  // Shared with the REST services (issue 10).
  nestingTooDeep: 'NESTING_TOO_DEEP'
} as const satisfies Record<string, ErrorCode>

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
