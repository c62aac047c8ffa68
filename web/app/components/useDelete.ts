import { useState } from 'preact/hooks'
import type { Rec } from '../resources.js'
import type { PendingDelete } from './DeleteDialog.js'
import { focusById, readCurrent, recordUrl, type ViewContext } from './view-context.js'

/**
 * Deleting after confirming: the dialog shows the record as stored now (read first), and the delete
 * only happens if it is still that version.
 */
export function useDelete (ctx: ViewContext) {
  const { spec, api, endpoint, t, applyChange, gone, setStatus, problemText } = ctx
  const [pendingDelete, setPendingDelete] = useState<PendingDelete | null>(null)

  const askDelete = async (record: Rec): Promise<void> => {
    const current = await readCurrent(ctx, record.id)
    if ('gone' in current) { gone(record.id, record); return }
    if ('problem' in current) { setStatus({ kind: 'error', text: problemText(current.problem) }); return }
    applyChange('replaced', record.id, current.record, true)
    setPendingDelete({ record: current.record, etag: current.etag, busy: false })
  }

  const closeDelete = (focusId?: string): void => {
    setPendingDelete(null)
    if (focusId !== undefined) focusById(focusId)
  }

  const confirmDelete = async (): Promise<void> => {
    const pending = pendingDelete
    if (pending === null || pending.busy) return
    setPendingDelete({ ...pending, busy: true })
    const { record } = pending
    const result = await api.request('DELETE', recordUrl(ctx, record.id), { accept: endpoint.accept, ifMatch: pending.etag, exact: spec.exactIds })
    if (result.ok) {
      closeDelete(`search-${spec.key}`)
      applyChange('deleted', record.id)
      setStatus({ kind: 'ok', text: t('deleted', { what: spec.describe(record) }) })
      return
    }
    if (result.status === 404) { closeDelete(`search-${spec.key}`); gone(record.id, record); return }
    if (result.status === 412) {
      const current = await readCurrent(ctx, record.id)
      if ('gone' in current) { closeDelete(`search-${spec.key}`); gone(record.id, record); return }
      if ('record' in current) {
        applyChange('replaced', record.id, current.record)
        setPendingDelete({ record: current.record, etag: current.etag, busy: false, notice: { kind: 'warn', text: t('deleteConflict') } })
        return
      }
    }
    setPendingDelete({ ...pending, busy: false, notice: { kind: 'error', text: problemText(result.problem ?? { status: result.status, errors: [] }) } })
  }


  return { pendingDelete, askDelete, closeDelete, confirmDelete }
}
