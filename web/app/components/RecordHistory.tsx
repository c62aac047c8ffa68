import { useEffect, useState } from 'preact/hooks'
import type { Api } from '../api.js'
import type { ChangeKind } from '../feed.js'
import type { Translate } from '../i18n.js'
import { recordWords } from '../record-words.js'
import { say, toRecord, type Rec, type ResourceSpec } from '../resources.js'
import type { ChangeBus } from './ResourceView.js'

/** One change of the record, newest first in the list. */
interface Entry {
  seq: number
  kind: ChangeKind
  at?: string
  /** The record as the change left it; undefined after a delete. */
  record?: Rec
}

/** As many as the server's default: the page shows the recent ones, not an audit trail. */
const SHOWN = 20

/**
 * The record's recent changes (the change feed's history of one record,
 * `GET /events/history`): when, created / updated / deleted, and for an
 * update the fields it changed, found by comparing with the change before
 * (an update whose previous version is not listed says just its kind). New
 * changes arriving on the page's feed go on top.
 */
export function RecordHistory ({ api, t, spec, id, url, changes, epoch }: { api: Api, t: Translate, spec: ResourceSpec, id: string, url: string, changes: ChangeBus, epoch: number }) {
  const w = recordWords(t.lang)
  const [entries, setEntries] = useState<Entry[] | undefined>(undefined)
  const [load, setLoad] = useState(0)

  useEffect(() => {
    let current = true
    void api.request('GET', `${url}?collection=${encodeURIComponent(spec.key)}&id=${encodeURIComponent(id)}&limit=${SHOWN}`, { accept: 'application/json', exact: spec.exactIds }).then((result) => {
      if (!current) return
      const items = (result.body as { items?: unknown } | undefined)?.items
      setEntries(result.ok && Array.isArray(items) ? items.flatMap(entryOf) : [])
    })
    return () => { current = false }
  }, [id, spec.key, epoch, load])

  useEffect(() => changes.subscribe((batch) => {
    if ('reset' in batch) { setLoad((n) => n + 1); return }
    const mine = batch.filter((c) => c.service === spec.key && c.id === id && c.seq !== undefined)
    if (mine.length === 0) return
    setEntries((now) => {
      if (now === undefined) return now
      const newest = now[0]?.seq ?? 0
      const fresh = mine.filter((c) => (c.seq as number) > newest).map((c) => ({ seq: c.seq as number, kind: c.kind, at: c.at, record: c.record }))
      return fresh.length === 0 ? now : [...fresh.reverse(), ...now].slice(0, SHOWN)
    })
  }), [changes, id, spec.key])

  if (entries === undefined) return null
  const what = (entry: Entry, before: Entry | undefined): string => {
    if (entry.kind !== 'replaced') return w(entry.kind === 'created' ? 'historyCreated' : 'historyDeleted')
    if (entry.record === undefined || before?.record === undefined) return w('historyUpdated')
    const changed = spec.fields.filter((f) => String(entry.record?.[f.key] ?? '') !== String(before.record?.[f.key] ?? '')).map((f) => say(t, f.label))
    return changed.length === 0 ? w('historyUpdated') : `${w('historyUpdated')}: ${changed.join(', ')}`
  }
  const when = (at: string | undefined): string => at === undefined ? '' : new Date(at).toLocaleString(t.lang)

  return (
    <section class="record-history" aria-labelledby="history-heading">
      <h2 id="history-heading">{w('history')}</h2>
      {entries.length === 0
        ? <p class="muted">{w('noHistory')}</p>
        : (
          <ol>
            {entries.map((entry, i) => (
              <li key={entry.seq} data-seq={entry.seq}>
                {entry.at !== undefined && <time dateTime={entry.at}>{when(entry.at)}</time>} <span class="change">{what(entry, entries[i + 1])}</span>
              </li>
            ))}
          </ol>
          )}
    </section>
  )
}

/** An item of the history's answer: `{seq, event: "<collection>.<kind>", data: {id, record, at}}`. */
function entryOf (item: unknown): Entry[] {
  const { seq, event, data } = (item ?? {}) as { seq?: unknown, event?: unknown, data?: { record?: unknown, at?: unknown } }
  const kind = typeof event === 'string' ? event.slice(event.lastIndexOf('.') + 1) : ''
  if (typeof seq !== 'number' || (kind !== 'created' && kind !== 'replaced' && kind !== 'deleted')) return []
  return [{ seq, kind, at: typeof data?.at === 'string' ? data.at : undefined, record: toRecord(data?.record) }]
}
