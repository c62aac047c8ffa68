import { useRef, useState } from 'preact/hooks'
import { BATCH_PATH, batchBase, batchFailure, chunk, deleteRequests, setFieldRequests, type BatchRequest, type Selected } from '../bulk-actions.js'
import { formValues, say, toRecord, type Rec } from '../resources.js'
import { readCurrent, type ViewContext } from './view-context.js'

export type BulkAction = { kind: 'delete' } | { kind: 'set', field: string, value: string }

/**
 * The rows ticked on this page, each with the version (and ETag) read when it was ticked; and the bulk
 * actions on them, sent as atomic batches whose If-Match refuses the lot when one record changed since.
 */
export function useSelection (ctx: ViewContext) {
  const { spec, api, endpoint, t, applyChange, setStatus, problemText } = ctx
  const [selected, setSelected] = useState<ReadonlyMap<string, Selected<Rec>>>(new Map())
  const [busy, setBusy] = useState(false)
  /** A batch was refused for the token's scopes (403): the token may not write, so no selection is offered. */
  const [forbidden, setForbidden] = useState(false)
  // The selection as of now (a render may be pending): what an action sends once the reads are done.
  const selectedRef = useRef(selected)
  /** Reads of ticked records still under way: an action waits for their ETags. */
  const reads = useRef(new Set<Promise<unknown>>())

  const update = (change: (next: Map<string, Selected<Rec>>) => void): void => {
    const next = new Map(selectedRef.current)
    change(next)
    selectedRef.current = next
    setSelected(next)
  }

  /** Ticks records (ticked at once; each is read, and its ETag goes with the bulk action) or unticks them. */
  const toggle = async (records: readonly Rec[], on: boolean): Promise<void> => {
    if (!on) { update((next) => { for (const r of records) next.delete(r.id) }); return }
    const fresh = records.filter((r) => !selectedRef.current.has(r.id))
    // Shown ticked now; an action waits until every version is read.
    update((next) => { for (const record of fresh) next.set(record.id, { id: record.id, record }) })
    const reading = Promise.all(fresh.map(async (record) => ({ record, current: await readCurrent(ctx, record.id) })))
    reads.current.add(reading)
    const read = await reading.finally(() => { reads.current.delete(reading) })
    update((next) => {
      for (const { record, current } of read) {
        if (!next.has(record.id)) continue // unticked meanwhile
        if ('record' in current) next.set(record.id, { id: record.id, etag: current.etag, record: current.record })
        else next.delete(record.id)
      }
    })
    const failed = read.find(({ current }) => !('record' in current))
    if (failed !== undefined && 'problem' in failed.current) setStatus({ kind: 'error', text: problemText(failed.current.problem) })
    else if (failed !== undefined) ctx.gone(failed.record.id, failed.record)
  }

  const clear = (): void => { update((next) => { next.clear() }) }
  const forget = (id: string): void => { if (selectedRef.current.has(id)) update((next) => { next.delete(id) }) }

  const requestsOf = (action: BulkAction, items: ReadonlyArray<Selected<Rec>>): BatchRequest[] => {
    const base = batchBase(endpoint)
    if (action.kind === 'delete') return deleteRequests(base, items)
    // The field's value as the page's form reads it (typed by its kind), alone in the patch.
    return setFieldRequests(base, items, (record) => ({ [action.field]: spec.replaceBody({ ...formValues(spec, record), [action.field]: action.value })[action.field] }))
  }

  /** Runs the action, a batch of at most 100 records at a time; stops at the first batch refused (nothing of it applied). */
  const run = async (action: BulkAction): Promise<void> => {
    if (busy) return
    setBusy(true)
    await Promise.all(reads.current)
    const items = [...selectedRef.current.values()]
    if (items.length === 0) { setBusy(false); return }
    let done = 0
    for (const part of chunk(items)) {
      const result = await api.request('POST', BATCH_PATH, { accept: 'application/json', body: { requests: requestsOf(action, part) }, exact: spec.exactIds })
      if (!result.ok) {
        if (result.status === 403) { setForbidden(true); update((next) => { next.clear() }) }
        const failure = result.status === 422 ? batchFailure(result.body, part) : undefined
        const record = failure?.id === undefined ? undefined : part.find((item) => item.id === failure.id)?.record
        const who = record === undefined ? '' : `${spec.describe(record) || `#${record.id}`}: `
        const why = failure === undefined
          ? problemText(result.problem ?? { status: result.status, errors: [] })
          : failure.status === 412 ? t('bulkStale') : failure.status === 404 ? t('gone') : failure.messages.join(' ')
        const before = done === 0 ? '' : t('bulkPartly', { done, total: items.length }) + ' '
        setStatus({ kind: 'error', text: `${before}${t('bulkRefused', { n: part.length })} ${who}${why}` })
        setBusy(false)
        return
      }
      const answers = (result.body as { responses?: Array<{ body?: unknown }> } | undefined)?.responses ?? []
      part.forEach((item, i) => {
        if (action.kind === 'delete') { applyChange('deleted', item.id); return }
        const record = toRecord(answers[i]?.body, spec)
        if (record !== undefined) applyChange('replaced', record.id, record)
      })
      update((next) => { for (const item of part) next.delete(item.id) })
      done += part.length
    }
    setBusy(false)
    const field = action.kind === 'set' ? spec.fields.find((f) => f.key === action.field) : undefined
    setStatus({ kind: 'ok', text: action.kind === 'delete' ? t('bulkDeleted', { n: done }) : t('bulkSet', { n: done, field: field === undefined ? '' : say(t, field.label) }) })
  }

  return { selected, busy, forbidden, setForbidden, toggle, clear, forget, run }
}
