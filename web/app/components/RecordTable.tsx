import type { Translate } from '../i18n.js'
import type { Sort } from '../listing.js'
import { say, type Rec, type ResourceSpec } from '../resources.js'
import { CHECKBOX_STYLE } from '../bulk-actions.js'
import { EditRow, RecordRow, type EditState } from './RecordRow.js'

interface Props {
  spec: ResourceSpec
  t: Translate
  rows: readonly Rec[]
  sort: Sort | undefined
  loading: boolean
  editing: EditState | null
  flashing: ReadonlySet<string>
  onSort: (field: string) => void
  onEdit: (record: Rec) => void
  onDelete: (record: Rec) => void
  onEditChange: (field: string, value: string) => void
  onSave: () => void
  onCancel: () => void
  /** The ticked rows' ids; undefined: no selection column. */
  selected?: ReadonlySet<string>
  onSelect?: (records: readonly Rec[], on: boolean) => void
}

/**
 * The listing: sortable column headers and a row per record (one of them, perhaps, being edited).
 * Column widths are fixed by the colgroup (rqs.css), so they stay put in every state.
 */
export function RecordTable ({ spec, t, rows, sort, loading, editing, flashing, onSort, onEdit, onDelete, onEditChange, onSave, onCancel, selected, onSelect }: Props) {
  const allTicked = rows.length > 0 && rows.every((r) => selected?.has(r.id) === true)
  const someTicked = rows.some((r) => selected?.has(r.id) === true)
  const columns = [{ key: 'id', label: t('id'), numeric: true, sortable: true }, ...spec.fields.map((f) => ({ key: f.key, label: say(t, f.label), numeric: f.kind === 'integer', sortable: f.sortable !== false }))]
  const ariaSort = (key: string): 'ascending' | 'descending' | undefined =>
    sort?.field === key ? (sort.desc ? 'descending' : 'ascending') : (key === 'id' && sort === undefined ? 'ascending' : undefined)
  return (
    <table class="records" aria-busy={loading ? 'true' : undefined}>
      <caption class="visually-hidden">{say(t, spec.title)}</caption>
      <colgroup>
        <col class="id" />
        {spec.fields.map((f) => <col key={f.key} />)}
        {/* Room for the selection's checkbox beside the buttons (the stylesheet's widths, per language, for each case). */}
        <col class={selected === undefined ? 'actions' : 'actions with-select'} />
      </colgroup>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.key} scope="col" class={c.numeric ? 'num' : undefined} aria-sort={ariaSort(c.key)}>
              {c.sortable
                ? (
                  <button type="button" class="sort" onClick={() => { onSort(c.key) }}>
                    {c.label}
                    <span class="sort-mark" aria-hidden="true">{ariaSort(c.key) === 'ascending' ? '▲' : ariaSort(c.key) === 'descending' ? '▼' : '↕'}</span>
                  </button>
                  )
                // The server sorts by no optional field: its header is a label, not a button.
                : <span class="unsorted">{c.label}</span>}
            </th>
          ))}
          <th scope="col" class="actions">
            <span class="visually-hidden">{t('actions')}</span>
            {selected !== undefined && (
              <input type="checkbox" class="select" id={`select-page-${spec.key}`} aria-label={t('selectPage')} checked={allTicked} style={CHECKBOX_STYLE}
                ref={(el) => { if (el !== null) el.indeterminate = someTicked && !allTicked }}
                onChange={(e) => { onSelect?.(rows, e.currentTarget.checked) }} />
            )}
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((record) => editing?.id === record.id
          ? <EditRow key={record.id} spec={spec} t={t} record={record} edit={editing} onChange={onEditChange} onSave={onSave} onCancel={onCancel} />
          : <RecordRow key={record.id} spec={spec} t={t} record={record} flash={flashing.has(record.id)}
              onEdit={() => { onEdit(record) }} onDelete={() => { onDelete(record) }}
              selected={selected === undefined ? undefined : selected.has(record.id)} onSelect={(on) => { onSelect?.([record], on) }} />)}
      </tbody>
    </table>
  )
}
