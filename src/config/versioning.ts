import { Type, type Static } from '@sinclair/typebox'
import { option } from './option.js'
import { isoDate, token, versionList } from './readers.js'

/**
 * The versions the REST services have (their representations). Declared here
 * because the services import the configuration; test/config.test.ts checks
 * it against the service descriptors, so a new version cannot be forgotten.
 */
export const API_VERSIONS: readonly number[] = [1, 2]

/** How clients choose an API version, and which versions are announced as deprecated. */
export const versioningOptions = Type.Object({
  // `rqs` in `application/vnd.rqs.v2+json`.
  vendor: option(Type.String(), {
    default: 'rqs', flag: 'vendor', value: 'name', env: 'RQS_VENDOR', read: token, help: 'vendor name in media types application/vnd.<vendor>.v<N>+json (default rqs)'
  }),
  // Serve versions by Accept header (media type versioning).
  mediaType: option(Type.Boolean(), {
    default: true, flag: 'no-media-type-versioning', env: 'RQS_NO_MEDIA_TYPE_VERSIONING', negated: true, help: 'do not negotiate versions by Accept (plain JSON gets v1)'
  }),
  // Also mount every REST service under /v1/… and /v2/… (URI versioning).
  uri: option(Type.Boolean(), {
    default: true, flag: 'no-uri-versioning', env: 'RQS_NO_URI_VERSIONING', negated: true, help: 'do not mount the REST services under /v1/ and /v2/'
  }),
  // Versions announced as deprecated (Deprecation, Sunset and Link headers).
  deprecated: option(Type.Array(Type.Integer({ minimum: 1 })), {
    default: [], flag: 'deprecate', value: 'versions', env: 'RQS_DEPRECATE', read: versionList(API_VERSIONS), help: `versions to announce as deprecated: ${API_VERSIONS.join(', ')} or a list such as 1,2`
  }),
  // When the deprecation took or takes effect (unset: start-up).
  deprecatedSince: option(Type.Optional(Type.Date()), {
    flag: 'deprecated-since', value: 'date', env: 'RQS_DEPRECATED_SINCE', read: isoDate, help: 'date of the deprecation (ISO 8601; default start-up)'
  }),
  // When deprecated versions stop being served.
  sunset: option(Type.Optional(Type.Date()), {
    flag: 'sunset', value: 'date', env: 'RQS_SUNSET', read: isoDate, help: 'date deprecated versions stop being served (ISO 8601)'
  })
})

export type VersioningConfig = Static<typeof versioningOptions>
