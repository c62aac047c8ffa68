import { useEffect, useState } from 'preact/hooks'
import type { Translate } from '../i18n.js'
import { say, type FieldSpec, type ResourceSpec } from '../resources.js'
import { KINDS } from '../../../src/domain/kinds/index.js'
import { filterParams } from '../view-state.js'

interface Props {
  spec: ResourceSpec
  t: Translate
  filters: Record<string, string>
  onChange: (filters: Record<string, string>) => void
}

const TYPING_DELAY_MS = 400

function labelOf (t: Translate, field: FieldSpec, param: string): string {
  const name = say(t, field.label)
  if (param.endsWith('[contains]')) return t('filterContains', { field: name })
  if (param.endsWith('[gte]')) return t('filterMin', { field: name })
  if (param.endsWith('[lte]')) return t('filterMax', { field: name })
  return name
}

/**
 * Per-field filters with the API's operators (text contains, number at least / at most, yes/no),
 * applied once typing pauses; the values live in the URL like the rest of the view.
 */
export function Filters ({ spec, t, filters, onChange }: Props) {
  const [draft, setDraft] = useState(filters)
  useEffect(() => { setDraft(filters) }, [filters])
  useEffect(() => {
    if (JSON.stringify(draft) === JSON.stringify(filters)) return
    const timer = setTimeout(() => { onChange(Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== ''))) }, TYPING_DELAY_MS)
    return () => { clearTimeout(timer) }
  }, [draft])
  const active = Object.keys(filters).length
  return (
    <details class="filter-box" open={active > 0 ? true : undefined}>
      <summary>{t('filters')}{active > 0 ? ` (${active})` : ''}</summary>
      <div class="filter-fields">
        {spec.fields.flatMap((field) => filterParams(field).map((param) => {
          const id = `filter-${spec.key}-${param.replace(/\W/g, '-')}`
          const set = (value: string): void => { setDraft((d) => ({ ...d, [param]: value })) }
          return (
            <div class="field" key={param}>
              <label for={id}>{labelOf(t, field, param)}</label>
              {field.kind === 'boolean' || field.allowed !== undefined
                ? (
                  <select id={id} value={draft[param] ?? ''} onChange={(e) => { set((e.currentTarget as HTMLSelectElement).value) }}>
                    <option value="">{t('filterAny')}</option>
                    {field.allowed !== undefined
                      ? field.allowed.map((value) => <option key={value} value={value}>{value}</option>)
                      : <><option value="true">{t('yes')}</option><option value="false">{t('no')}</option></>}
                  </select>
                  )
                : <input id={id} type="text" inputMode={KINDS[field.kind].app.numeric ? 'numeric' : undefined} autoComplete="off" value={draft[param] ?? ''} onInput={(e) => { set((e.currentTarget as HTMLInputElement).value) }} />}
            </div>
          )
        }))}
        {active > 0 && <button type="button" onClick={() => { setDraft({}); onChange({}) }}>{t('clearFilters')}</button>}
      </div>
    </details>
  )
}
