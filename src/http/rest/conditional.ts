import { hash } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { IF_ABSENT, type WriteCondition } from '../../domain/index.js'
import { AppError } from '../errors/index.js'
/**
 * Conditional requests (RFC 9110 §13): strong ETags and the evaluation of
 * If-Match / If-None-Match. If-Modified-Since and If-Unmodified-Since are not
 * evaluated: no resource here has a Last-Modified date, and RFC 9110 lets a
 * server ignore them then.
 */

/**
 * A strong ETag for a representation, from a fingerprint that changes
 * whenever the representation does. 96 bits of SHA-1: collisions between two
 * versions of one record are not a practical concern, and node's one-shot
 * hash costs under a microsecond.
 */
export function strongEtag (fingerprint: string): string {
  return `"${hash('sha1', fingerprint, 'base64url').slice(0, 16)}"`
}

/** True when the request carries a precondition this module evaluates. */
export function hasPreconditions (headers: IncomingHttpHeaders): boolean {
  return headers['if-match'] !== undefined || headers['if-none-match'] !== undefined
}

export type PreconditionOutcome = 'proceed' | 'not-modified' | 'failed'

/**
 * RFC 9110 §13.2.2, steps 1 and 3. `current` is the selected
 * representation's ETag, undefined when there is none. `read` is true for
 * GET and HEAD, where a false If-None-Match means 304 rather than 412.
 * The caller has already applied §13.2.1: when the unconditional answer
 * would not be 2xx (for example 404), preconditions are not evaluated.
 */
export function evaluatePreconditions (headers: IncomingHttpHeaders, current: string | undefined, read: boolean): PreconditionOutcome {
  const ifMatch = headers['if-match']
  if (ifMatch !== undefined && !ifMatchHolds(ifMatch, current)) return 'failed'
  const ifNoneMatch = headers['if-none-match']
  if (ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, current)) return read ? 'not-modified' : 'failed'
  return 'proceed'
}

/** If-Match: true for `*` when a representation exists, or when one listed tag strongly matches. */
function ifMatchHolds (header: string, current: string | undefined): boolean {
  if (current === undefined) return false
  const tags = parseEntityTags(header)
  if (tags === '*') return true
  // Strong comparison: a weak tag never matches.
  return tags.some((t) => !t.weak && t.tag === current)
}

/** If-None-Match: false for `*` when a representation exists, or when one listed tag weakly matches. */
function ifNoneMatchHolds (header: string, current: string | undefined): boolean {
  if (current === undefined) return true
  const tags = parseEntityTags(header)
  if (tags === '*') return false
  return !tags.some((t) => t.tag === current)
}

export interface EntityTag {
  weak: boolean
  /** The opaque tag with its quotes, e.g. `"abc"`. */
  tag: string
}

/**
 * Parses `*` or a list of entity tags (`"a", W/"b"`). A malformed member is
 * skipped: it cannot match any tag this server issued.
 */
export function parseEntityTags (header: string): '*' | EntityTag[] {
  if (header.trim() === '*') return '*'
  const tags: EntityTag[] = []
  let i = 0
  const n = header.length
  while (i < n) {
    while (i < n && (header[i] === ' ' || header[i] === '\t' || header[i] === ',')) i++
    if (i >= n) break
    let weak = false
    if (header.startsWith('W/', i)) { weak = true; i += 2 }
    if (header[i] === '"') {
      const end = header.indexOf('"', i + 1)
      if (end === -1) break
      tags.push({ weak, tag: header.slice(i, end + 1) })
      i = end + 1
    }
    // Skip whatever is left of this member up to the next comma.
    while (i < n && header[i] !== ',') i++
  }
  return tags
}

/**
 * A conditional read: sets the representation's ETag and evaluates
 * If-None-Match / If-Match. 'not-modified' has already been answered (304);
 * 'failed' is the caller's 412 in its own shape.
 */
export function conditionalRead (request: FastifyRequest, reply: FastifyReply, etag: string): PreconditionOutcome {
  reply.header('etag', etag)
  if (!hasPreconditions(request.headers)) return 'proceed'
  const outcome = evaluatePreconditions(request.headers, etag, true)
  if (outcome === 'not-modified') void reply.code(304).send()
  return outcome
}

/**
 * A conditional write: evaluates the preconditions against the current record
 * (undefined when there is none) and pins the write to the state they were
 * checked against, as the store's compare-and-set condition. Undefined when a
 * precondition is false (412).
 */
export function writeConditionFor<T> (headers: IncomingHttpHeaders, current: T | undefined, etagOf: (record: T) => string): WriteCondition<T> | undefined {
  if (evaluatePreconditions(headers, current === undefined ? undefined : etagOf(current), false) !== 'proceed') return undefined
  return current === undefined ? IF_ABSENT : { kind: 'matches', current }
}

/**
 * The 412 for a false precondition on `record` (e.g. "address 5"). When the
 * request's only precondition is `If-None-Match: *` (create only if absent),
 * nothing "changed": the record exists, and the problem's entry says so with
 * its own code (RECORD_EXISTS) under the PRECONDITION_FAILED clients branch on.
 */
export function preconditionFailed (headers: IncomingHttpHeaders, record: string): AppError {
  if (headers['if-match'] === undefined && headers['if-none-match']?.trim() === '*') {
    const detail = `a record with this id already exists (${record}); If-None-Match: * allows only a create`
    return new AppError('PRECONDITION_FAILED', detail, { errors: [{ code: 'RECORD_EXISTS', detail }] })
  }
  return new AppError('PRECONDITION_FAILED', `A precondition (If-Match / If-None-Match) is false for ${record}`)
}
