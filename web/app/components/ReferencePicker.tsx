import { useEffect, useState } from 'preact/hooks'
import { referenceTarget } from '../reference-targets.js'
import { labelOf } from '../resources.js'

/** How many records the search offers. */
const OFFERED = 10
const SEARCH_DELAY_MS = 250

interface Props {
  /** The collection the field names a record of. */
  collection: string
  /** The field's input id: the suggestions are `<id>-options`, the chosen record's name `<id>-chosen`. */
  id: string
  value: string
}

/**
 * What a reference field's text offers: typed words search the target
 * collection (its `q`) and the records found are offered as the field's
 * choices, by name; a typed id is named beside the field. The field's value
 * stays the id the server reads.
 */
export function ReferencePicker ({ collection, id, value }: Props) {
  const [options, setOptions] = useState<Array<{ id: string, label: string }>>([])
  const [chosen, setChosen] = useState<string | undefined>(undefined)
  useEffect(() => {
    const found = referenceTarget(collection)
    const text = value.trim()
    if (found === undefined || text === '') { setChosen(undefined); return }
    const { api, target } = found
    let current = true
    const timer = setTimeout(() => {
      const one = /^\d+$/.test(text)
      // An id is looked up as a filtered list: a free id is then an empty page, not a 404.
      const url = `${target.endpoint.url}?${one ? `id=${text}&limit=1` : `q=${encodeURIComponent(text)}&limit=${OFFERED}`}`
      void api.request('GET', url, { accept: target.endpoint.accept, exact: target.spec.exactIds }).then((result) => {
        if (!current) return
        const items = (result.body as { items?: unknown } | undefined)?.items
        const first: unknown = Array.isArray(items) ? items[0] : undefined
        // Named by the target collection's label field, as its references are everywhere.
        const label = (item: object): string => labelOf(item as Record<string, unknown>, target.spec.labelField)
        if (one) { setChosen(result.ok && typeof first === 'object' && first !== null ? label(first) : undefined); return }
        setChosen(undefined)
        if (result.ok && Array.isArray(items)) setOptions(items.flatMap((item) => typeof item === 'object' && item !== null ? [{ id: String((item as { id: unknown }).id), label: label(item) }] : []))
      })
    }, SEARCH_DELAY_MS)
    return () => { current = false; clearTimeout(timer) }
  }, [collection, value])
  return (
    <>
      <datalist id={`${id}-options`}>
        {options.map((option) => <option key={option.id} value={option.id}>{option.label}</option>)}
      </datalist>
      {chosen !== undefined && <span id={`${id}-chosen`} class="muted reference-chosen">{chosen}</span>}
    </>
  )
}
