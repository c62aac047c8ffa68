import { useEffect, useRef } from 'preact/hooks'
import type { Translate } from '../i18n.js'
import { say, type Rec, type ResourceSpec } from '../resources.js'

export interface PendingDelete {
  record: Rec
  etag?: string
  busy: boolean
  /** Shown above the buttons: a conflict, or the service's message. */
  notice?: { kind: 'warn' | 'error', text: string }
}

interface Props {
  spec: ResourceSpec
  t: Translate
  pending: PendingDelete
  onConfirm: () => void
  onCancel: () => void
}

/**
 * The confirmation before a delete, as a modal <dialog>: the browser keeps
 * focus inside it and Escape cancels. It shows the record as it is now (read
 * just before), and the delete only happens if it is still that version.
 */
export function DeleteDialog ({ spec, t, pending, onConfirm, onCancel }: Props) {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const element = dialog.current
    if (element !== null && !element.open) element.showModal()
    return () => { if (element?.open === true) element.close() }
  }, [])
  const what = spec.describe(pending.record)
  const titleId = `delete-title-${spec.key}`
  return (
    <dialog ref={dialog} aria-labelledby={titleId} onCancel={(e) => { e.preventDefault(); onCancel() }}>
      <h2 id={titleId}>{t('confirmDeleteTitle')}</h2>
      <p>{t('confirmDeleteText', { what: what === '' ? `#${pending.record.id}` : what })}</p>
      <dl class="record-summary">
        <dt>{t('id')}</dt><dd>{pending.record.id}</dd>
        {spec.fields.map((f) => [<dt key={`t${f.key}`}>{say(t, f.label)}</dt>, <dd key={`d${f.key}`}>{String(pending.record[f.key] ?? '')}</dd>])}
      </dl>
      {pending.notice !== undefined && <p class={`notice ${pending.notice.kind}`} role="alert">{pending.notice.text}</p>}
      <div class="dialog-actions">
        <button type="button" autoFocus onClick={onCancel}>{t('cancel')}</button>
        <button type="button" class="danger primary" onClick={onConfirm} aria-disabled={pending.busy ? 'true' : undefined}>{t('delete')}</button>
      </div>
    </dialog>
  )
}
