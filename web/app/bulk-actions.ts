/**
 * Bulk actions on the selected records, as atomic batches (`POST /batch`,
 * docs/collections.md "Atomic batches"): each record's request carries the
 * ETag read when it was selected, so a record changed since makes the whole
 * batch fail (412 inside a 422 BATCH_FAILED) and nothing of it is applied.
 */

/** The server's most requests in one batch (src/services/batch). */
export const MAX_BATCH_REQUESTS = 100
/** Where batches go (the server serves it at its root). */
export const BATCH_PATH = '/batch'

/**
 * A checkbox's own size: the stylesheet pads and heightens every input (text
 * fields), which would make a checkbox push the row's buttons out of view.
 */
export const CHECKBOX_STYLE = { padding: '0', minHeight: '0', width: '1.15rem', height: '1.15rem', margin: '0 .6rem 0 0', verticalAlign: 'middle' }

/** A selected record: its id, the version read when it was selected, and that version's ETag. */
export interface Selected<R = Record<string, unknown>> {
  id: string
  etag?: string
  record: R
}

export interface BatchRequest {
  method: 'DELETE' | 'PATCH'
  url: string
  headers?: { 'If-Match': string }
  body?: Record<string, unknown>
}

/**
 * The collection's URL as a batch takes it: students only as `/v2/students`
 * (under media-type versioning the page reads them at `/students` with the
 * version in Accept).
 */
export function batchBase (endpoint: { url: string, accept: string }): string {
  return /vnd\.[^;]*\.v2\b/.test(endpoint.accept) && !endpoint.url.startsWith('/v2/') ? `/v2${endpoint.url}` : endpoint.url
}

function recordUrl (base: string, id: string): string {
  return `${base}/${encodeURIComponent(id)}`
}

function ifMatch (item: Selected<unknown>): { headers?: { 'If-Match': string } } {
  return item.etag === undefined ? {} : { headers: { 'If-Match': item.etag } }
}

/** Splits the selection into batches of at most `size` (each all or nothing, one after another). */
export function chunk<T> (items: readonly T[], size = MAX_BATCH_REQUESTS): T[][] {
  const chunks: T[][] = []
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size))
  return chunks
}

/** A DELETE per record, each only if the record is still the version selected. */
export function deleteRequests (base: string, items: ReadonlyArray<Selected<unknown>>): BatchRequest[] {
  return items.map((item) => ({ method: 'DELETE', url: recordUrl(base, item.id), ...ifMatch(item) }))
}

/**
 * One field set to one value on every record: a merge patch (PATCH) of just
 * that field per record, each under the If-Match of the version selected, so
 * a record changed since is refused (412) and, the batch being atomic,
 * nothing changes. `patch` makes the patch from a record.
 */
export function setFieldRequests<R> (base: string, items: ReadonlyArray<Selected<R>>, patch: (record: R) => Record<string, unknown>): BatchRequest[] {
  return items.map((item) => ({ method: 'PATCH', url: recordUrl(base, item.id), ...ifMatch(item), body: patch(item.record) }))
}

/** Why a batch was refused: the record of the failing request (by its index in the chunk), its status and the server's words. */
export interface BatchFailure {
  id?: string
  status?: number
  messages: string[]
}

function messagesOf (value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return []
  const errors = (value as { errors?: unknown }).errors
  if (!Array.isArray(errors)) return []
  return errors.flatMap((e: unknown) => {
    if (typeof e !== 'object' || e === null) return []
    const { message, detail } = e as { message?: unknown, detail?: unknown }
    const text = typeof message === 'string' ? message : typeof detail === 'string' ? detail : undefined
    return text === undefined ? [] : [text]
  })
}

/** Reads a 422 BATCH_FAILED answer: `index` names the request, `failed` holds its own problem. */
export function batchFailure (body: unknown, items: ReadonlyArray<Selected<unknown>>): BatchFailure | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const { index, failed } = body as { index?: unknown, failed?: unknown }
  if (typeof index !== 'number') return undefined
  const status = typeof failed === 'object' && failed !== null && typeof (failed as { status?: unknown }).status === 'number' ? (failed as { status: number }).status : undefined
  return { id: items[index]?.id, status, messages: messagesOf(failed) }
}
