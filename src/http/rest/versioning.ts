import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { MediaTypeChooser } from '../../lib/negotiate.js'
import { appendVary } from '../../lib/vary.js'
import type { RecordFormat } from '../../records/index.js'

/**
 * API versions by media type (spec: "Media type versioning"). A client asks
 * for `application/vnd.<vendor>.v<N>+json`; `application/json`, `*\/*` or no
 * Accept get the default version. The answer carries the type the client
 * asked for in Content-Type, and `Vary: Accept`.
 */
export interface VersionChoice {
  version: number
  /** The Content-Type of a successful answer. */
  contentType: string
  /** Set when the client asked for a collection as a stream: of JSON lines (application/x-ndjson) or CSV rows (text/csv). */
  stream?: StreamFormat
}

/** How a collection is streamed: NDJSON (issue 13) or CSV (issue 22). */
export type StreamFormat = RecordFormat

export const JSON_TYPE = 'application/json; charset=utf-8'
/** Newline-delimited JSON: a collection streamed one record a line (issue 13). */
export const NDJSON_TYPE = 'application/x-ndjson'
/** What a collection's Accept may name for CSV rows (the answer's Content-Type adds charset and header: src/records/csv.ts). */
export const CSV_ACCEPT = 'text/csv'
/** The stream types a collection offers beside its JSON versions, as a 406 lists them. */
export const STREAM_TYPES: readonly string[] = [NDJSON_TYPE, CSV_ACCEPT]

export function vendorType (vendor: string, version: number): string {
  return `application/vnd.${vendor}.v${version}+json`
}

/** Matches `application/vnd.<vendor>.v<N>+json` as a request Content-Type (parameters allowed). */
export function vendorJsonPattern (vendor: string): RegExp {
  return new RegExp(`^application/vnd\\.${vendor.replace(/[.]/g, '\\.')}\\.v\\d+\\+json(\\s*;|$)`, 'i')
}

export class VersionNegotiator {
  /** Media types this negotiator serves, plain JSON first so that wildcards pick the default. */
  readonly available: readonly string[]
  readonly #byType = new Map<string, VersionChoice>()
  readonly #default: VersionChoice
  readonly #chooser: MediaTypeChooser
  readonly #streamChooser: MediaTypeChooser
  readonly #streams: ReadonlyMap<string, VersionChoice>

  /**
   * @param versions the versions served, e.g. [1, 2]
   * @param defaultVersion what plain JSON and wildcards get
   * @param vendorTypes false when media type versioning is switched off: only plain JSON is served
   */
  constructor (readonly vendor: string, readonly versions: readonly number[], defaultVersion: number, vendorTypes = true) {
    this.#default = { version: defaultVersion, contentType: JSON_TYPE }
    this.#byType.set('application/json', this.#default)
    if (vendorTypes) {
      for (const v of versions) this.#byType.set(vendorType(vendor, v), { version: v, contentType: vendorType(vendor, v) })
    }
    this.available = [...this.#byType.keys()]
    this.#chooser = new MediaTypeChooser(this.available)
    this.#streamChooser = new MediaTypeChooser([...this.available, ...STREAM_TYPES])
    this.#streams = new Map<string, VersionChoice>([
      [NDJSON_TYPE, { version: defaultVersion, contentType: NDJSON_TYPE, stream: 'ndjson' }],
      [CSV_ACCEPT, { version: defaultVersion, contentType: CSV_ACCEPT, stream: 'csv' }]
    ])
  }

  /** The media types whose answers a version gives on this negotiator (for the API description). */
  mediaTypesOf (version: number): string[] {
    return [...this.#byType].filter(([, choice]) => choice.version === version).map(([type]) => type)
  }

  /**
   * The version and content type for an Accept header, or undefined when nothing served is acceptable (406).
   * `streamable`: the resource is a collection, which can also be streamed as NDJSON or CSV.
   */
  negotiate (accept: string | undefined, streamable = false): VersionChoice | undefined {
    // Fast path for what almost every client sends: no lookup at all.
    if (accept === undefined || accept === '*/*' || accept === 'application/json' || accept === '') return this.#default
    const best = (streamable ? this.#streamChooser : this.#chooser).select(accept)
    if (best === undefined) return undefined
    return this.#streams.get(best) ?? this.#byType.get(best.toLowerCase())
  }
}

/** Joins the versions a route serves in its `apiVersion` constraint ('1,2'). */
export const VERSION_LIST = ','

/**
 * A find-my-way constraint: routes registered with `constraints: { apiVersion: '2' }`
 * answer only requests whose Accept negotiates to version 2 (`'1,2'`: to either). A
 * request whose Accept matches nothing derives 'none' and falls through to the
 * not-found handler, which answers 406.
 */
type ConstraintStrategy = Parameters<FastifyInstance['addConstraintStrategy']>[0]
type RouteHandler = NonNullable<ReturnType<ReturnType<ConstraintStrategy['storage']>['get']>>

export function apiVersionConstraint (negotiator: VersionNegotiator): ConstraintStrategy {
  // The versions of a constraint's value, split once per server: the router sets every handler's mask again each
  // time a route joins its node (a start with declared collections split the same few lists tens of thousands of times).
  const lists = new Map<string, readonly string[]>()
  const versionsOf = (versions: string): readonly string[] => {
    let list = lists.get(versions)
    if (list === undefined) lists.set(versions, list = versions.split(VERSION_LIST))
    return list
  }
  return {
    name: 'apiVersion',
    storage () {
      // What the router keeps per version is a mask of the handlers serving it (find-my-way's handler storage):
      // a route serving several versions ('1,2') is added to each one's mask; setting a mask again only adds to it.
      const masks = new Map<string, number>()
      return {
        get: (version: string) => (masks.get(version) ?? null) as unknown as RouteHandler | null,
        set: (versions: string, mask: RouteHandler) => {
          for (const version of versionsOf(versions)) masks.set(version, (masks.get(version) ?? 0) | (mask as unknown as number))
        }
      }
    },
    deriveConstraint (req: IncomingMessage): string {
      // A JSON version when the client accepts one; an NDJSON- or CSV-only Accept routes to the default version,
      // whose collection routes stream (the others then answer 406).
      const choice = negotiator.negotiate(req.headers.accept) ?? negotiator.negotiate(req.headers.accept, true)
      return choice === undefined ? 'none' : String(choice.version)
    },
    mustMatchWhenDerived: false,
    validate (value: unknown) {
      if (typeof value !== 'string') throw new TypeError('apiVersion constraint must be a string')
    }
  }
}

/** Sets Vary and the negotiated Content-Type on a reply (plain JSON is Fastify's default already). */
export function applyChoice (reply: FastifyReply, choice: VersionChoice, headers?: Record<string, unknown>): void {
  appendVary(reply, 'Accept', headers)
  // A stream's route sets its type once it starts streaming: errors before that are JSON.
  if (choice.contentType !== JSON_TYPE && choice.stream === undefined) reply.header('content-type', choice.contentType)
}
