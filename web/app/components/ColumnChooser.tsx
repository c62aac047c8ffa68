import type { Translate } from '../i18n.js'
import { useState } from 'preact/hooks'
import { say, type ResourceSpec } from '../resources.js'
import { wordsOf } from '../words.js'
import { CHECKBOX_STYLE } from '../bulk-actions.js'

const words = wordsOf({
  en: { columns: 'Columns', columnsShown: 'Columns ({shown} of {all})', showAll: 'Show all' },
  de: { columns: 'Spalten', columnsShown: 'Spalten ({shown} von {all})', showAll: 'Alle zeigen' }
})

interface Props {
  spec: ResourceSpec
  t: Translate
  hidden: ReadonlySet<string>
  onChange: (hidden: ReadonlySet<string>) => void
}

/** A checkbox per field: which columns the table shows (the id always). */
export function ColumnChooser ({ spec, t, hidden, onChange }: Props) {
  const w = words(t.lang)
  // The checkboxes exist only while it is open: closed, the page has one control per field name (the form's).
  const [open, setOpen] = useState(false)
  const all = spec.fields.length
  const toggle = (key: string, shown: boolean): void => {
    const next = new Set(hidden)
    if (shown) next.delete(key)
    else next.add(key)
    onChange(next)
  }
  return (
    <details class="column-chooser" id={`columns-${spec.key}`} onToggle={(e) => { setOpen((e.currentTarget as HTMLDetailsElement).open) }}>
      <summary>{hidden.size === 0 ? w('columns') : w('columnsShown', { shown: all - hidden.size, all })}</summary>
      {open && <fieldset>
        <legend class="visually-hidden">{w('columns')}</legend>
        {spec.fields.map((field) => (
          <label key={field.key} class="column-choice">
            <input type="checkbox" style={CHECKBOX_STYLE} checked={!hidden.has(field.key)} onChange={(e) => { toggle(field.key, e.currentTarget.checked) }} />
            {say(t, field.label)}
          </label>
        ))}
        {hidden.size > 0 && <button type="button" onClick={() => { onChange(new Set()) }}>{w('showAll')}</button>}
      </fieldset>}
    </details>
  )
}
