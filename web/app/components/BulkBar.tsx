import { useEffect, useRef, useState } from 'preact/hooks'
import { MAX_BATCH_REQUESTS } from '../bulk-actions.js'
import type { Translate } from '../i18n.js'
import { say, type ResourceSpec } from '../resources.js'
import type { BulkAction } from './useSelection.js'

interface Props {
  spec: ResourceSpec
  t: Translate
  count: number
  busy: boolean
  onRun: (action: BulkAction) => void
  onClear: () => void
  /** Rows on this page not ticked yet: the bar offers to tick them (phone cards have no header checkbox). */
  untickedOnPage: number
  onSelectPage: () => void
}

/** The actions on the ticked rows: how many, delete (after confirming), set one field to one value. */
export function BulkBar ({ spec, t, count, busy, onRun, onClear, untickedOnPage, onSelectPage }: Props) {
  const [confirming, setConfirming] = useState(false)
  const [setting, setSetting] = useState(false)
  const fields = spec.fields.filter((f) => f.editable && f.readOnly !== true)
  const [field, setField] = useState(fields[0]?.key ?? '')
  const [value, setValue] = useState('')
  if (count === 0) return null
  const chosen = fields.find((f) => f.key === field)
  const batches = Math.ceil(count / MAX_BATCH_REQUESTS)
  const id = (what: string): string => `bulk-${what}-${spec.key}`
  return (
    <div class="bulk-bar" role="region" aria-label={t('bulkActions')}>
      <p id={id('count')} aria-live="polite">{t('bulkCount', { n: count })}</p>
      {batches > 1 && <p class="muted">{t('bulkChunks', { n: batches, size: MAX_BATCH_REQUESTS })}</p>}
      <button type="button" class="danger" id={id('delete')} aria-disabled={busy ? 'true' : undefined} onClick={() => { setConfirming(true) }}>{t('bulkDelete')}</button>
      {fields.length > 0 && <button type="button" id={id('set')} aria-expanded={setting ? 'true' : 'false'} onClick={() => { setSetting(!setting) }}>{t('bulkSetField')}</button>}
      {untickedOnPage > 0 && <button type="button" onClick={onSelectPage}>{t('selectPage')}</button>}
      <button type="button" onClick={onClear}>{t('bulkClear')}</button>
      {setting && (
        <form class="bulk-set" onSubmit={(e) => { e.preventDefault(); if (!busy) onRun({ kind: 'set', field, value }) }}>
          <label for={id('field')}>{t('bulkField')}</label>
          <select id={id('field')} value={field} onChange={(e) => { setField(e.currentTarget.value); setValue('') }}>
            {fields.map((f) => <option key={f.key} value={f.key}>{say(t, f.label)}</option>)}
          </select>
          <label for={id('value')}>{t('bulkValue')}</label>
          {chosen?.kind === 'boolean' || chosen?.allowed !== undefined
            ? (
              <select id={id('value')} value={value} onChange={(e) => { setValue(e.currentTarget.value) }}>
                <option value="">—</option>
                {(chosen.allowed ?? ['true', 'false']).map((v) => <option key={v} value={v}>{chosen.kind === 'boolean' ? t(v === 'true' ? 'yes' : 'no') : v}</option>)}
              </select>
              )
            : <input id={id('value')} value={value} onInput={(e) => { setValue(e.currentTarget.value) }} />}
          <button type="submit" class="primary" aria-disabled={busy ? 'true' : undefined}>{t('bulkApply', { n: count })}</button>
        </form>
      )}
      {confirming && <ConfirmBulkDelete t={t} count={count} onConfirm={() => { setConfirming(false); onRun({ kind: 'delete' }) }} onCancel={() => { setConfirming(false) }} />}
    </div>
  )
}

/** The confirmation before a bulk delete, saying how many records go. */
function ConfirmBulkDelete ({ t, count, onConfirm, onCancel }: { t: Translate, count: number, onConfirm: () => void, onCancel: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const element = dialog.current
    if (element !== null && !element.open) element.showModal()
    return () => { if (element?.open === true) element.close() }
  }, [])
  return (
    <dialog ref={dialog} aria-labelledby="bulk-delete-title" onCancel={(e) => { e.preventDefault(); onCancel() }}>
      <h2 id="bulk-delete-title">{t('bulkConfirmTitle', { n: count })}</h2>
      <p>{t('bulkConfirmText', { n: count })}</p>
      <div class="dialog-actions">
        <button type="button" autoFocus onClick={onCancel}>{t('cancel')}</button>
        <button type="button" class="danger primary" onClick={onConfirm}>{t('delete')}</button>
      </div>
    </dialog>
  )
}
