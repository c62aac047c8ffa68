import { useEffect, useState } from 'preact/hooks'
import type { Api } from '../api.js'
import { formatNumber, type Translate } from '../i18n.js'
import type { Endpoint } from '../listing.js'
import { navigate, recordPath } from '../navigation.js'
import { recordWords } from '../record-words.js'
import { say, toRecord, type Rec, type ResourceSpec } from '../resources.js'
import { APP_BASE } from '../view-state.js'

/** A collection the page shows, and where it is. */
export interface View {
  spec: ResourceSpec
  endpoint: Endpoint
}

/** The first records of each kind that refer to one record, and how many there are. */
interface Referring {
  view: View
  field: string
  total: number
  records: Rec[]
}

/** How many referring records are listed by name; the rest are a link to the filtered list. */
const SHOWN = 10

/**
 * The records that refer to this one (a reference field of any collection
 * naming this collection), each kind as a short list of links, with a link
 * to the whole filtered list.
 */
export function BackRelations ({ api, t, spec, id, views }: { api: Api, t: Translate, spec: ResourceSpec, id: string, views: readonly View[] }) {
  const w = recordWords(t.lang)
  const [found, setFound] = useState<Referring[] | undefined>(undefined)
  const sources = views.flatMap((view) => view.spec.fields.filter((f) => f.references === spec.key && !f.key.includes('.')).map((f) => ({ view, field: f.key })))

  useEffect(() => {
    let current = true
    void Promise.all(sources.map(async ({ view, field }): Promise<Referring | undefined> => {
      const result = await api.request('GET', `${view.endpoint.url}?${encodeURIComponent(field)}=${encodeURIComponent(id)}&limit=${SHOWN}&count=true`, { accept: view.endpoint.accept, exact: view.spec.exactIds })
      if (!result.ok) return undefined
      const items = (result.body as { items?: unknown } | undefined)?.items
      const records = Array.isArray(items) ? items.flatMap((item) => toRecord(item, view.spec) ?? []) : []
      const total = Number(result.headers.get('x-total-count') ?? records.length)
      return { view, field, total, records }
    })).then((all) => { if (current) setFound(all.filter((r): r is Referring => r !== undefined)) })
    return () => { current = false }
  }, [id, spec.key])

  if (sources.length === 0 || found === undefined) return null
  const any = found.some((r) => r.total > 0)
  return (
    <section class="back-relations" aria-labelledby="referred-by">
      <h2 id="referred-by">{w('referredBy')}</h2>
      {!any && <p class="muted">{w('noReferences')}</p>}
      {found.filter((r) => r.total > 0).map(({ view, field, total, records }) => {
        const label = view.spec.fields.find((f) => f.key === field)?.label
        // The list's own filters (at least and at most the id): a link it opens into, filtered to these records.
        const listPath = `${APP_BASE}${view.spec.key}?${field}[gte]=${encodeURIComponent(id)}&${field}[lte]=${encodeURIComponent(id)}`
        return (
          <div key={`${view.spec.key}.${field}`} class="referring">
            <h3>{w('referredByField', { collection: say(t, view.spec.title), field: label === undefined ? field : say(t, label), n: formatNumber(t.lang, total) })}</h3>
            <ul>
              {records.map((record) => {
                const path = recordPath(view.spec.key, record.id)
                return <li key={record.id}><a href={path} onClick={(e) => { navigate(path, e) }}>{view.spec.describe(record) || `#${record.id}`}</a></li>
              })}
            </ul>
            {total > records.length && <p><a href={listPath} onClick={(e) => { navigate(listPath, e) }}>{w('showAllReferring', { n: formatNumber(t.lang, total) })}</a></p>}
          </div>
        )
      })}
    </section>
  )
}
