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
