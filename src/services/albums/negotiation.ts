import Negotiator from 'negotiator'

export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8'
export const JSON_UTF8 = 'application/json; charset=utf-8'

/**
 * application/json first: it is what a missing Accept, `*\/*` and
 * `application/*` get (GraphQL over HTTP: "SHOULD assume application/json"),
 * while a client naming application/graphql-response+json gets it. The
 * charset parameter makes `;charset=utf-8` match and any other charset miss.
 */
const OFFERED = [JSON_UTF8, GRAPHQL_RESPONSE_JSON]

/** Clients send few distinct Accept values: remember the answers instead of re-parsing each time. */
const decided = new Map<string, string | undefined>()
const MAX_REMEMBERED = 256

/** The response media type for an Accept header (with q-values), or undefined when nothing offered is acceptable. */
export function responseMediaType (accept: string | undefined): string | undefined {
  if (accept === undefined || accept === '') return JSON_UTF8
  if (decided.has(accept)) return decided.get(accept)
  const chosen = new Negotiator({ headers: { accept } }).mediaType(OFFERED)
  if (decided.size >= MAX_REMEMBERED) decided.clear()
  decided.set(accept, chosen)
  return chosen
}
