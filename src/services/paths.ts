import { ConfigError, type CoreConfig } from '../config.js'
import { ERRORS_PATH } from '../http/errors/index.js'
import { OPENAPI_PATH } from '../http/openapi/index.js'
import { LIVENESS_PATH, METRICS_PATH, READINESS_PATH } from '../http/operations/index.js'
import type { ServiceDescriptor, ServicePath } from './types.js'

/** The server's own pages and documents, each with everything below it. */
function serverPaths (): string[] {
  // /docs holds the documents (./docs) and Swagger UI (/docs/api); /metrics is kept free even while it is off.
  return [LIVENESS_PATH, READINESS_PATH, METRICS_PATH, OPENAPI_PATH, ERRORS_PATH, '/docs']
}

/** The twins of URI versioning: /v1/…, /v2/…, and any later /vN. */
const URI_VERSION = /^\/v\d+(?=\/|$)/

interface Claim extends ServicePath {
  service: string
}

/** One is the other, or below it. */
function overlaps (a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`)
}

function where (claim: Claim): string {
  return `${claim.owner ?? claim.service} at ${claim.path}${claim.option === undefined ? '' : ` (--${claim.option})`}`
}

/**
 * Refuses services whose paths overlap the server's own, the URI versions'
 * /vN, or each other's: a path under another owner's would be answered, and
 * guarded, by whichever route the router happens to pick. The student
 * service at `/` is no overlap: it answers `/` and `/{id}` beside the
 * others and claims only its `/assets`. Throws a ConfigError (exit 2).
 */
export function refuseOverlappingPaths (config: CoreConfig, services: readonly ServiceDescriptor[]): void {
  const claims: Claim[] = services.flatMap((s) => s.paths(config).map((p) => ({ ...p, service: s.name })))
  const server = serverPaths()
  for (const [i, claim] of claims.entries()) {
    const moveIt = claim.option === undefined ? 'choose other paths' : `choose another --${claim.option}`
    const version = URI_VERSION.exec(claim.path)?.[0]
    if (version !== undefined) throw new ConfigError(`${where(claim)} is under ${version}, where URI versioning puts every service's versions: ${moveIt}`)
    const own = server.find((path) => overlaps(claim.path, path))
    if (own !== undefined) throw new ConfigError(`${where(claim)} overlaps the server's own ${own}: ${moveIt}`)
    const other = claims.slice(i + 1).find((c) => c.service !== claim.service && overlaps(c.path, claim.path))
    if (other !== undefined) {
      const options = [claim.option, other.option].filter((o) => o !== undefined).map((o) => `--${o}`)
      const remedy = options.length === 2 ? `move one with ${options.join(' or ')}` : options.length === 1 ? `choose another ${options[0] ?? ''}` : 'choose other paths'
      throw new ConfigError(`${where(claim)} overlaps ${where(other)}: ${remedy}`)
    }
  }
}
