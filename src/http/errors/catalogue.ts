import type { Language } from './language.js'

/**
 * User-facing texts of one error code in one language. `{field}` in a
 * message is replaced by the name of the field concerned. (Here, not in
 * ./messages/, which imports the codes: the texts' tables depend on the
 * catalogue, never the other way.)
 */
export interface ErrorTexts {
  /** Short summary of the problem type (the problem's `title`). */
  title: string
  /** A sentence a user interface can show (each entry's `message`). */
  message: string
}

/**
 * The application error codes every server has: the requests' shape, ids
 * and preconditions, the store, security and time limits. Each code has a
 * fixed HTTP status (the most specific one that applies) and a description
 * for client developers; the user-facing title and message of every code,
 * per language, live in ../messages/. A service's own codes (a record of its
 * kind not found, GraphQL's) come with its descriptor (`errors`, with their
 * texts); a server's catalogue (./error-catalogue.ts) holds these and those of
 * its services. docs/errors.md is generated from the built-in services'
 * catalogue and a test keeps the two equal.
 *
 * Codes are stable: clients may branch on them. Letters, digits, dash and
 * underscore only, and never an HTTP status.
 */
export interface CatalogueEntry {
  /** The HTTP status a response with this code carries (CLIENT_ERROR may carry another 4xx). */
  status: number
  /** Which error shape carries the code: REST problems and the v1 envelope, or GraphQL `extensions.code`. */
  scope?: 'rest' | 'graphql'
  /** When the code is used and what a client can do about it. English, for developers. */
  description: string
}

export const CATALOGUE = {
  // Request shape and content
  VALIDATION_FAILED: { status: 400, description: 'One or more parts of the request are invalid. The `errors` list has one entry per problem, each with its own code (FIELD_*).' },
  FIELD_REQUIRED: { status: 400, description: 'A required field (body member, query or path parameter) is missing. `detail` names it.' },
  FIELD_TYPE: { status: 400, description: 'A field has the wrong JSON type, for example a number where a string is expected. `detail` names the field and the expected type.' },
  FIELD_TOO_SHORT: { status: 400, description: 'A string field is shorter than its minimum length (for example empty where a value is needed).' },
  FIELD_TOO_LONG: { status: 400, description: 'A string field is longer than its maximum length. `detail` gives the limit.' },
  FIELD_OUT_OF_RANGE: { status: 400, description: 'A number is below its minimum or above its maximum. `detail` gives the bound.' },
  FIELD_INVALID: { status: 400, description: 'A field does not have an allowed value or form.' },
  FIELD_READ_ONLY: { status: 400, description: 'The body sets a field the server sets itself (a declared collection\'s automatic timestamp, `x-auto`). Leave it out: the server writes it on every create (and, for `updated`, every change).' },
  JSON_EXPECTED: { status: 400, description: 'The request needs a JSON object as its body, and the body is absent, empty or another JSON value (array, string, number, null).' },
  MALFORMED_JSON: { status: 400, description: 'The body is declared as JSON but is not valid JSON. `detail` carries the parser message with the position.' },
  FORBIDDEN_PROPERTY: { status: 400, description: 'The JSON body has a `__proto__` or `constructor.prototype` member, which could alter object prototypes. Remove it.' },
  BODY_TOO_LARGE: { status: 413, description: 'The request body is larger than the server accepts (`--body-limit`, 1 MiB by default).' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'The request body has a Content-Type the resource does not accept; send `application/json`.' },
  UNSUPPORTED_CONTENT_ENCODING: { status: 415, description: 'The request body is sent with a `Content-Encoding` (gzip, br, …) the server does not decode. Send it uncompressed; the `Accept-Encoding` header of the answer lists what is supported (`identity`).' },
  NOT_ACCEPTABLE: { status: 406, description: 'The Accept header names no media type the resource can produce; accept `application/json`.' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'The resource exists but does not support this method. The `Allow` header lists the methods it does support.' },
  ROUTE_NOT_FOUND: { status: 404, description: 'No resource exists at this path. Check the base path and the spelling.' },
  CLIENT_ERROR: { status: 400, description: 'The request was rejected for a reason without a more specific code (for example a Content-Length that does not match the body). The status may be another 4xx.' },

  // Identifiers, paging and preconditions
  INVALID_ID: { status: 400, description: 'The id in the path (or the `id` query parameter of a record\'s history, `/events/history`) is not a valid id. Address ids are integers from 1 to 9223372036854775807 written in plain decimal digits without leading zeros; student ids are integers from 0.' },
  ID_MISMATCH: { status: 400, description: 'The body has an `id` that differs from the id in the path. Leave `id` out of the body or send the same value.' },
  INVALID_QUERY: { status: 400, description: 'A query parameter of a list is not one it accepts: an unknown parameter, a filter on an unknown field, an unknown operator (or `contains` on a number), or a `sort` naming an unknown field or one twice; a `filter=` expression it cannot read, with the position of the mistake (`filter: expected a value after \'>=\' at 12`); on the change feed (`/events`, `/events/history`), a parameter it does not take or a filter without one service. `detail` names each and lists what the list accepts; values of the wrong type are VALIDATION_FAILED instead.' },
  INVALID_CURSOR: { status: 400, description: 'The `cursor` query parameter is not one this service issued. Use the `next` link of the previous page unchanged, or start again without a cursor.' },
  IDEMPOTENCY_KEY_INVALID: { status: 400, description: 'The `Idempotency-Key` header must be sent once, as 1 to 255 visible ASCII characters (letters, digits, punctuation; no spaces), optionally in double quotes. A UUID is a good key.' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, description: 'The `Idempotency-Key` was already used within the last 24 hours for a different request (another operation, resource, API version, query or body; `/students/` and `/v1/students` are the resource `/students` is). A retry must repeat the original request exactly; a new request needs a new key.' },
  PRECONDITION_FAILED: { status: 412, description: 'A condition in If-Match or If-None-Match evaluated to false: the record changed since you read it (or, with `If-None-Match: *`, it already exists). Read it again, reapply your change and retry with the new ETag.' },
  RECORD_EXISTS: { status: 412, description: 'The entry in a PRECONDITION_FAILED problem\'s `errors` when `If-None-Match: *` (create only if absent) meets a record that exists. Nothing was changed; read the record, or PUT without `If-None-Match` to update it.' },

  // Records
  RECORD_NOT_CREATED: { status: 500, description: 'The record could not be stored because of a server fault. Nothing was created; the request may be retried.' },
  UNKNOWN_ERROR_CODE: { status: 404, description: 'The error catalogue has no entry for the code in the path.' },

  // Server side
  STORE_UNAVAILABLE: { status: 503, description: 'The data store cannot be reached right now. Nothing was changed; retry after the number of seconds in the `Retry-After` header.' },
  STORE_TIMEOUT: { status: 503, description: 'The request\'s work in the data store took longer than its time budget and was stopped: one of its reads passed `--read-budget` (30 s by default), or PostgreSQL cancelled a statement at its statement timeout. Nothing was changed. Ask for less (a narrower filter, fewer records, counts or text searches), or retry after the seconds in `Retry-After`.' },
  SCHEMA_CHANGED: { status: 503, description: 'The collection\'s declaration changed while the request was on its way (through the admin API, on this instance or another one sharing its database): a write made with the declaration before is refused rather than stored under it, and a read that met a field or collection the change took away is stopped. Nothing was changed. The server follows the change at once: send the same request again after the second in `Retry-After`, and it is served under the new declaration.' },
  WRITE_OUTCOME_UNKNOWN: { status: 503, description: 'The data store did not confirm a write in time, or the connection was lost while waiting: the change may or may not have been stored. Retry after `Retry-After` seconds with the same `Idempotency-Key` header, which applies it exactly once; without a key, read the resource before retrying.' },
  INTERNAL: { status: 500, description: 'An unexpected server fault stopped the request. Report the `traceId` to the operators.' },

  // Security and operations (issue 11): every service answers them, each in its own shape.
  UNAUTHENTICATED: { status: 401, description: 'The request needs an access token (`Authorization: Bearer <token>`), and none was sent or the one sent is unknown, expired, wrongly signed or malformed. `WWW-Authenticate` says which; get a valid token and retry.' },
  FORBIDDEN: { status: 403, description: 'The access token is valid but lacks the scope this request needs (`read` for reads and GraphQL queries, `write` for changes, `metrics` for /metrics). `WWW-Authenticate` names the scope.' },
  RATE_LIMITED: { status: 429, description: 'Too many requests from this client (its token, or its address without one) in the current window. Wait the number of seconds in `Retry-After`; `RateLimit-Policy` and `RateLimit` describe the budget.' },
  OVERLOADED: { status: 503, description: 'The server is overloaded (its event loop or memory passed a limit) and refuses new work instead of queueing it. Nothing was changed; retry after the number of seconds in `Retry-After`.' },
  AUTH_UNAVAILABLE: { status: 503, description: 'The identity provider\'s signing keys (JWKS) could not be fetched, so the access token could not be checked. Nothing was changed; retry after the number of seconds in `Retry-After`.' },
  RULE_DENIED: { status: 403, description: 'The collection\'s rule for this write (create, update or delete; docs/rules.md) does not hold for the caller and the record, or for one record of a bulk write or batch (then nothing was written). `detail` names the rule\'s operation; a record the caller may not view is 404 instead.' },
  OWNER_MISMATCH: { status: 403, description: 'The write names another owner than the server gives (`x-owner`, docs/rules.md): a create owns the record by the caller\'s subject and an update never changes its owner. Leave the owner field out of the body, or send the value it holds. Nothing was written.' },
  HOST_NOT_ALLOWED: { status: 421, description: 'The `Host` header names a host this server does not answer to (protection against DNS rebinding). Use the server\'s own name, `localhost` or its IP address; an operator can allow more names with `--allowed-hosts`. Nothing was changed.' },

  // Reliability (issue 10)
  FIELD_INVALID_TEXT: { status: 400, description: 'A text field contains U+0000 (NUL) or an unpaired surrogate (`\\ud800`–`\\udfff` without its partner), which no store can keep exactly. Remove those characters; every other Unicode text is stored as sent.' },
  FIELD_UNKNOWN: { status: 400, description: 'A write body (students v2, addresses, declared collections) has a member that is not a field of the record; `detail` names it and the field it most likely meant. Remove it or fix its name (students v1 drops such members, as its spec says).' },
  BULK_SIZE: { status: 400, description: 'A bulk create (`POST` of a JSON array) holds no record or more than its maximum (10 000; the body limit applies too). Send between 1 and 10 000 records, or several requests.' },
  TOO_MANY_GROUPS: { status: 400, description: 'An aggregate (`GET /{collection}/aggregate`) would give more groups than it answers (1 000). Narrow the records with a filter, or group by fewer fields.' },
  FILTER_REQUIRED: { status: 400, description: 'A filtered `PATCH` or `DELETE` on a collection names no filter: it would change every record. Add a filter (the list\'s bracket parameters), or `all=true` to mean every record.' },
  NESTING_TOO_DEEP: { status: 400, description: 'The JSON body or the GraphQL document nests arrays, objects or brackets deeper than the server parses (64 levels for JSON bodies; see `docs/decisions.md`). Flatten the data.' },
  REQUEST_TIMEOUT: { status: 408, description: 'The request did not arrive in time: its headers within `--headers-timeout` (10 s by default) or its body within `--body-timeout` (30 s after the headers). The connection is closed; send the whole request again, promptly.' },
  PROCESSING_TIMEOUT: { status: 503, description: 'The server did not finish the request within its time limit (`--handler-timeout`, 60 s by default). A write (POST, PUT, PATCH, DELETE) may or may not have been applied: retry it with the same `Idempotency-Key` header, which applies it exactly once, or read the record before you retry. Retry after the seconds in `Retry-After`.' }
} as const satisfies Record<string, CatalogueEntry>

/** A code every server has. */
export type CoreErrorCode = keyof typeof CATALOGUE

/** A code with its texts in every language (the compiler checks that none is missing): how a service declares its own. */
export interface ErrorDefinition extends CatalogueEntry {
  messages: Readonly<Record<Language, ErrorTexts>>
}

/** A service's own codes, by code (`errors` of its descriptor). */
export type ErrorDefinitions = Readonly<Record<string, ErrorDefinition>>

/**
 * The codes each service declares, by service name. A service adds its own
 * by declaration merging, next to its definitions:
 * `declare module '…/http/errors/catalogue.js' { interface ServiceErrorCodes { albums: typeof ALBUM_ERRORS } }`,
 * so that `new AppError('QUERY_TOO_DEEP', …)` is checked like a core code.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the services' declarations
export interface ServiceErrorCodes {}

/** A code of the core or of a service. Which ones a server answers with is its catalogue's business (./error-catalogue.ts). */
export type ErrorCode = CoreErrorCode | { [S in keyof ServiceErrorCodes]: keyof ServiceErrorCodes[S] & string }[keyof ServiceErrorCodes]

/**
 * Refusals of a request before its service sees it (issue 11: authentication,
 * scopes, rate limits, overload; the Host check). Every service answers them with this code and
 * status, in its own shape.
 */
export const ACCESS_REFUSALS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['UNAUTHENTICATED', 'FORBIDDEN', 'RATE_LIMITED', 'OVERLOADED', 'AUTH_UNAVAILABLE', 'HOST_NOT_ALLOWED'])

/** Where the catalogue is served: `GET {ERRORS_PATH}/{code}`. */
export const ERRORS_PATH = '/errors'
