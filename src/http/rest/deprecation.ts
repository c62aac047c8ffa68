import type { FastifyReply } from 'fastify'

/**
 * Signals that a version is deprecated: `Deprecation` (RFC 9745, a structured
 * date), `Sunset` (RFC 8594, an HTTP-date) and `Link`s to the documentation
 * and to the successor version.
 */
export interface DeprecationPolicy {
  since: Date
  sunset?: Date
  /** Where the versioning policy is documented (rel="deprecation"). */
  docsUrl: string
}

export interface Successor {
  /** URL of the same resource in the successor version. */
  url: string
  /** Media type of the successor, for the header approach where the URL stays the same. */
  type?: string
}

export function deprecationHeaders (policy: DeprecationPolicy): { deprecation: string, sunset?: string } {
  return {
    deprecation: `@${Math.floor(policy.since.getTime() / 1000)}`,
    sunset: policy.sunset?.toUTCString()
  }
}

export function applyDeprecation (reply: FastifyReply, policy: DeprecationPolicy, successor: Successor): void {
  const h = deprecationHeaders(policy)
  reply.header('deprecation', h.deprecation)
  if (h.sunset !== undefined) reply.header('sunset', h.sunset)
  const typeParam = successor.type === undefined ? '' : `; type="${successor.type}"`
  reply.header('link', `<${policy.docsUrl}>; rel="deprecation"; type="text/markdown", <${successor.url}>; rel="successor-version"${typeParam}`)
}
