import type { HeaderName } from './notes.js'

interface HeaderObject {
  description: string
  required?: boolean
  schema: Record<string, unknown>
}

/** The response headers of the API description (components.headers), each described once. */
export const RESPONSE_HEADERS: Record<HeaderName, HeaderObject> = {
  ETag: {
    description: 'Entity tag of the representation (RFC 9110 §8.8.3), strong for records. Send it back in `If-Match` to update safely, or in `If-None-Match` to revalidate (304).',
    required: true,
    schema: { type: 'string', pattern: '^(W/)?"[^"]*"$', examples: ['"q1w2e3r4t5y6u7i8"'] }
  },
  Location: {
    description: 'The path of the record just created.',
    required: true,
    schema: { type: 'string', format: 'uri-reference', examples: ['/addresses/1'] }
  },
  Link: {
    description: 'Web links (RFC 8288): `rel="next"` for the next page of a list; for a deprecated version `rel="deprecation"` and `rel="successor-version"`; on the entry point, the directory of services.',
    schema: { type: 'string', examples: ['</addresses?limit=2&cursor=Mg>; rel="next"'] }
  },
  'X-Total-Count': {
    description: 'With `count=true` on a list: how many records match its filters, whatever the page.',
    schema: { type: 'string', pattern: '^[0-9]+$', examples: ['42'] }
  },
  Vary: {
    description: 'Request headers the answer depends on (`Accept`, `Accept-Language`, `Accept-Encoding`), for caches.',
    schema: { type: 'string', examples: ['Accept'] }
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying: the data store is unavailable for now, the server is overloaded, or the rate limit is spent.',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$', examples: ['5'] }
  },
  'X-Request-Id': {
    description: 'The id this request is logged under: a well-formed incoming `X-Request-Id` (1–128 of `A-Za-z0-9._:-`) or a fresh UUID. Problems carry it as `traceId`.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' }
  },
  Allow: {
    description: 'The methods the resource supports.',
    required: true,
    schema: { type: 'string', examples: ['GET, HEAD, PUT, DELETE, OPTIONS'] }
  },
  'Content-Language': {
    description: 'On problem details and the error catalogue: the language of `title` and `message` (`en` or `de`, chosen by `Accept-Language`).',
    schema: { type: 'string', enum: ['en', 'de'] }
  },
  Deprecation: {
    description: 'This version is deprecated since the given time (RFC 9745, `@` Unix seconds); `Link` names the successor.',
    required: true,
    schema: { type: 'string', pattern: '^@-?[0-9]+$' }
  },
  'Replaced-Record': {
    description: 'On a create that took the id of a record held (the `count` id rule, after a delete): the path of that record, which the create replaced. The change feed reports such a create as `students.replaced`. Start the server with `--student-ids sequence` to never reuse an id.',
    schema: { type: 'string', format: 'uri-reference', examples: ['/students/3'] }
  },
  'WWW-Authenticate': {
    description: 'With authentication on (RFC 6750): the `Bearer` challenge, with `error="invalid_token"` for a refused token or `error="insufficient_scope"` and the `scope` needed.',
    required: true,
    schema: { type: 'string', examples: ['Bearer realm="rqs", error="insufficient_scope", scope="write"'] }
  },
  'RateLimit-Policy': {
    description: 'With --rate-limit: the budget, requests (`q`) per window in seconds (`w`) (draft-ietf-httpapi-ratelimit-headers).',
    schema: { type: 'string', examples: ['"default";q=600;w=60'] }
  },
  RateLimit: {
    description: 'With --rate-limit: what is left of the budget (`r`) and the seconds until the window resets (`t`).',
    schema: { type: 'string', examples: ['"default";r=599;t=60'] }
  },
  Sunset: {
    description: 'When this deprecated version stops being served (RFC 8594, an HTTP date); present when a sunset is configured.',
    schema: { type: 'string' }
  }
}

/** A reference to a header component. */
export function headerRef (name: HeaderName): { $ref: string } {
  return { $ref: `#/components/headers/${name}` }
}
