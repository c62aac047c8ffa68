import { MediaTypeChooser } from '../../lib/negotiate.js'

export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json; charset=utf-8'
export const JSON_UTF8 = 'application/json; charset=utf-8'

/**
 * application/json first: it is what a missing Accept, `*\/*` and
 * `application/*` get (GraphQL over HTTP: "SHOULD assume application/json"),
 * while a client naming application/graphql-response+json gets it. The
 * charset parameter makes `;charset=utf-8` match and any other charset miss.
 */
const chooser = new MediaTypeChooser([JSON_UTF8, GRAPHQL_RESPONSE_JSON])

/** The response media type for an Accept header (with q-values), or undefined when nothing offered is acceptable. */
export function responseMediaType (accept: string | undefined): string | undefined {
  return chooser.select(accept)
}

const pages = new MediaTypeChooser([JSON_UTF8, GRAPHQL_RESPONSE_JSON, 'text/html'])

/** True for a browser: its Accept prefers an HTML page to either GraphQL media type. */
export function prefersHtml (accept: string | undefined): boolean {
  return pages.prefers(accept, 'text/html')
}
