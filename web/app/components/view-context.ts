import type { Api } from '../api.js'
import type { Translate } from '../i18n.js'
import type { Endpoint } from '../listing.js'
import type { FieldWording, Problem, SplitProblem } from '../problem.js'
import { toRecord, type Rec, type ResourceSpec } from '../resources.js'

export interface Status {
  kind: 'ok' | 'warn' | 'error'
  text: string
}

/** What the parts of a view (editor, delete, add) share: where the records are, and how a change is shown. */
export interface ViewContext {
  spec: ResourceSpec
  endpoint: Endpoint
  api: Api
  t: Translate
  /** A change made here or learnt of; `read`: a fresher copy of a row only (moves nothing, reads no list). */
  applyChange: (kind: 'created' | 'replaced' | 'deleted', id: string, record?: Rec, read?: boolean) => void
  /** The record was deleted elsewhere: drop its row and say so. */
  gone: (id: string, record?: Rec) => void
  setStatus: (status: Status) => void
  problemText: (problem: Problem) => string
  word: FieldWording
}

export const NO_ERRORS: SplitProblem = Object.freeze({ fields: Object.freeze({}), general: Object.freeze([]) as unknown as string[] })

export function focusById (id: string): void {
  // After the next render, when the element exists.
  setTimeout(() => { document.getElementById(id)?.focus() }, 0)
}

export function recordUrl (ctx: ViewContext, id: string): string {
  return `${ctx.endpoint.url}/${encodeURIComponent(id)}`
}

/** The record as stored now, with its ETag; or that it is gone; or why it could not be read. */
export async function readCurrent (ctx: ViewContext, id: string): Promise<{ record: Rec, etag?: string } | { gone: true } | { problem: Problem }> {
  const { api, endpoint, spec } = ctx
  const result = await api.request('GET', recordUrl(ctx, id), { accept: endpoint.accept, exact: spec.exactIds })
  const record = toRecord(result.body, spec)
  if (result.ok && record !== undefined) return { record, etag: result.headers.get('etag') ?? undefined }
  if (result.status === 404) return { gone: true }
  return { problem: result.problem ?? { status: result.status, errors: [] } }
}
