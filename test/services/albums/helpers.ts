import { request } from '../../helpers/server.js'

export const ALL_ALBUMS = [
  { title: 'Rumours', artist: 'Fleetwood Mac', recordNo: 20 },
  { title: "What's Going On", artist: 'Marvin Gaye', recordNo: 10 },
  { title: 'Pet Sounds', artist: 'The Beach Boys', recordNo: 12 }
]

/**
 * A server with the album service alone (no record collection): the schema
 * is exactly the spec's, without the collections' fields, mutations and
 * subscriptions that issue 23 adds beside `albums` (test/graphql/ tests those).
 */
export const SPEC_ONLY = { students: { enabled: false }, addresses: { enabled: false } } as const

export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8'
export const JSON_UTF8 = 'application/json; charset=utf-8'

/** POSTs a GraphQL request as JSON, as most clients do. */
export async function graphql (origin: string, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}, operationName?: string): ReturnType<typeof request> {
  return await request(`${origin}/graphql`, { method: 'POST', headers, json: { query, variables, operationName } })
}

/** The same request over GET, parameters in the query string. */
export async function graphqlGet (origin: string, params: Record<string, string>, headers: Record<string, string> = {}): ReturnType<typeof request> {
  return await request(`${origin}/graphql?${new URLSearchParams(params).toString()}`, { headers })
}
