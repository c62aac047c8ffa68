import { useContext, useEffect, useRef } from 'preact/hooks'
import type { Translate } from '../i18n.js'
import type { SplitProblem } from '../problem.js'
import { inputModeOf, referenceLabel, say, type Rec, type ResourceSpec } from '../resources.js'
import { CHECKBOX_STYLE } from '../bulk-actions.js'
import { BooleanChoices } from './BooleanChoices.js'
import { EnumChoices } from './EnumChoices.js'
import { describedBy, FieldMessages } from './FieldMessages.js'
import { navigate, recordPath } from '../navigation.js'
import { ReferenceLink } from './ReferenceLink.js'
import { recordWords } from '../record-words.js'
import { AttemptableContext, may } from '../operations.js'

export interface RowNotice {
  kind: 'warn' | 'error'
  lines: string[]
}

export interface EditState {
  id: string
  /** The ETag of the version the fields were filled from; sent as If-Match. */
  etag?: string
  values: Record<string, string>
  errors: SplitProblem
  /** Reading the current version (fields read-only until it arrives). */
  loading: boolean
  busy: boolean
  notice?: RowNotice
}

export const editButtonId = (spec: ResourceSpec, id: string): string => `edit-${spec.key}-${id}`
export const deleteButtonId = (spec: ResourceSpec, id: string): string => `delete-${spec.key}-${id}`
export const editInputId = (spec: ResourceSpec, id: string, field: string): string => `edit-${spec.key}-${id}-${field}`

interface RowProps {
  spec: ResourceSpec
  t: Translate
  record: Rec
  flash: boolean
  onEdit: () => void
  onDelete: () => void
  /** Ticked for a bulk action; undefined: no selection column (the token may not write). */
  selected?: boolean
  onSelect?: (on: boolean) => void
}

/** A cell's words: yes/no for a boolean, nothing for an unset field. */
function cellText (t: Translate, field: ResourceSpec['fields'][number], value: Rec[string] | undefined): string {
  if (value === undefined) return ''
  if (field.kind === 'boolean') return t(value === true ? 'yes' : 'no')
  return String(value)
}

/** A record as a table row; on a narrow screen each cell shows its column's name (data-label). */
export function RecordRow ({ spec, t, record, flash, onEdit, onDelete, selected, onSelect }: RowProps) {
  const what = spec.describe(record)
  // Actions the record rules never allow this caller are not offered (../operations.ts).
  const attemptable = useContext(AttemptableContext)
  return (
    <tr class={flash ? 'flash' : undefined} data-id={record.id}>
      <td class="num" data-label={t('id')}><a href={recordPath(spec.key, record.id)} title={recordWords(t.lang)('openRecord', { what: what === '' ? `#${record.id}` : what })} onClick={(e) => { navigate(recordPath(spec.key, record.id), e) }}>{record.id}</a></td>
      {spec.fields.map((field) => (
        <td key={field.key} class={field.references === undefined && (field.kind === 'integer' || field.kind === 'number') ? 'num' : undefined} data-label={say(t, field.label)}>
          {field.references === undefined || record[field.key] === undefined
            ? cellText(t, field, record[field.key])
            // A reference: the target's label, linking to the target record's page.
            : <ReferenceLink target={field.references} id={String(record[field.key])} label={referenceLabel(record, field.key)} />}
        </td>
      ))}
      <td class="actions">
        {/* In the actions cell, not a column of its own: the columns stay those of the record. */}
        {selected !== undefined && (
          <input type="checkbox" class="select" id={`select-${spec.key}-${record.id}`} checked={selected} style={CHECKBOX_STYLE} aria-label={t('selectRecord', { what: what === '' ? `#${record.id}` : what })}
            onChange={(e) => { onSelect?.(e.currentTarget.checked) }} />
        )}
        {may(attemptable, 'update', record) && <button type="button" id={editButtonId(spec, record.id)} aria-label={t('editRecord', { what })} onClick={onEdit}>{t('edit')}</button>}
        {may(attemptable, 'delete', record) && <button type="button" id={deleteButtonId(spec, record.id)} class="danger" aria-label={t('deleteRecord', { what })} onClick={onDelete}>{t('delete')}</button>}
      </td>
    </tr>
  )
}

interface EditProps {
  spec: ResourceSpec
  t: Translate
  record: Rec
  edit: EditState
  onChange: (field: string, value: string) => void
  onSave: () => void
  onCancel: () => void
}

/**
 * A row being edited in place: Enter saves, Escape cancels. Escape also
 * cancels while nothing has the focus (the row's inputs wait, disabled, for
 * the record to be read), so a quick Escape is never lost.
 */
export function EditRow ({ spec, t, record, edit, onChange, onSave, onCancel }: EditProps) {
  const keys = (event: KeyboardEvent): void => {
    if (event.key === 'Enter') { event.preventDefault(); onSave() }
    if (event.key === 'Escape') { event.preventDefault(); onCancel() }
  }
  const row = useRef<HTMLTableRowElement>(null)
  const cancel = useRef(onCancel)
  cancel.current = onCancel
  useEffect(() => {
    const escape = (event: KeyboardEvent): void => {
      const active = document.activeElement
      // The row's own inputs handle it (and prevent the default); focus elsewhere (a dialog, another control) keeps it.
      if (event.key !== 'Escape' || event.defaultPrevented || (active !== null && active !== document.body && row.current?.contains(active) !== true)) return
      event.preventDefault()
      cancel.current()
    }
    document.addEventListener('keydown', escape)
    return () => { document.removeEventListener('keydown', escape) }
  }, [])
  const columns = spec.fields.length + 2
  return (
    <>
      <tr ref={row} class="editing" data-id={record.id} aria-busy={edit.loading || edit.busy ? 'true' : undefined}>
        <td class="num" data-label={t('id')}>{record.id}</td>
        {spec.fields.map((field) => {
          const id = editInputId(spec, record.id, field.key)
          // Set by the server (an automatic timestamp): shown as it is.
          if (field.readOnly === true) return <td key={field.key} data-label={say(t, field.label)}>{edit.values[field.key]}</td>
          if (!field.editable) {
            return (
              <td key={field.key} data-label={say(t, field.label)}>
                {edit.values[field.key]}
                <span class="kept" title={t('nameKept')}><span aria-hidden="true">🔒 </span>{t('nameKeptShort')}<span class="visually-hidden">: {t('nameKept')}</span></span>
              </td>
            )
          }
          const messages = edit.errors.fields[field.key]
          return (
            <td key={field.key} data-label={say(t, field.label)}>
              {field.kind === 'boolean' || field.allowed !== undefined
                ? (
                  <select
                    id={id}
                    aria-label={say(t, field.label)}
                    disabled={edit.loading}
                    value={edit.values[field.key] ?? ''}
                    onChange={(e) => { onChange(field.key, (e.currentTarget as HTMLSelectElement).value) }}
                    onKeyDown={keys}
                    {...describedBy(`${id}-error`, messages)}
                  >
                    {field.allowed !== undefined ? <EnumChoices t={t} allowed={field.allowed} /> : <BooleanChoices t={t} />}
                  </select>
                  )
                : (
                  <input
                    id={id}
                    type="text"
                    aria-label={say(t, field.label)}
                    inputMode={inputModeOf(field)}
                    autoComplete="off"
                    readOnly={edit.loading}
                    value={edit.values[field.key] ?? ''}
                    onInput={(e) => { onChange(field.key, (e.currentTarget as HTMLInputElement).value) }}
                    onKeyDown={keys}
                    {...describedBy(`${id}-error`, messages)}
                  />
                  )}
              <FieldMessages id={`${id}-error`} messages={messages} />
            </td>
          )
        })}
        <td class="actions">
          <button type="button" class="primary" onClick={onSave} disabled={edit.loading}>{t('save')}</button>
          <button type="button" onClick={onCancel} onKeyDown={keys}>{t('cancel')}</button>
        </td>
      </tr>
      {(edit.notice !== undefined || edit.errors.general.length > 0) && (
        <tr class={`row-notice${edit.notice?.kind === 'error' || edit.errors.general.length > 0 ? ' error' : ''}`}>
          <td class="wide" colSpan={columns}>
            <div role="alert">
              {edit.notice?.lines.map((line, i) => <p key={i}>{line}</p>)}
              {edit.errors.general.map((line, i) => <p key={`g${i}`}>{line}</p>)}
            </div>
          </td>
        </tr>
      )}
    </>
  )
}
