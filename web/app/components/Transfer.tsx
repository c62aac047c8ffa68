import { useRef, useState } from 'preact/hooks'
import type { Api } from '../api.js'
import { parseCsv } from '../csv.js'
import type { Translate } from '../i18n.js'
import type { Endpoint, ListQuery } from '../listing.js'
import { type ResourceSpec } from '../resources.js'
import { searchOf } from '../view-state.js'

interface Props {
  spec: ResourceSpec
  t: Translate
  api: Api
  endpoint: Endpoint
  /** What the view shows: an export holds every record that matches it, in its order. */
  query: ListQuery
  /** After an import, the list is read again. */
  onImported: () => void
}

interface Progress {
  label: string
  done: number
  total?: number
}

/**
 * Export and Import of CSV files, with progress. Export streams the server's
 * CSV of the view's filters and sort (`Accept: text/csv`, every matching
 * record) into a file. Import reads a CSV with a header row and writes each
 * record through the API, as the add form does: every record is checked by
 * the service, one by one (not all or nothing: `rqs import` is that), and the
 * page says how many were added and why any were refused.
 */
export function Transfer ({ spec, t, api, endpoint, query, onImported }: Props) {
  const [progress, setProgress] = useState<Progress | null>(null)
  const [summary, setSummary] = useState<{ kind: 'ok' | 'warn' | 'error', text: string } | null>(null)
  const picker = useRef<HTMLInputElement>(null)

  const exportCsv = async (): Promise<void> => {
    const params = new URLSearchParams(searchOf({ ...query, cursor: undefined, page: 0 }).slice(1))
    params.delete('limit')
    params.set('count', 'true')
    setSummary(null)
    setProgress({ label: t('exporting'), done: 0 })
    const res = await api.stream(`${endpoint.url}?${params.toString()}`, 'text/csv')
    if (res === undefined || !res.ok || res.body === null) {
      setProgress(null)
      setSummary({ kind: 'error', text: t('exportFailed', { status: res?.status ?? 0 }) })
      return
    }
    const total = Number(res.headers.get('x-total-count') ?? Number.NaN)
    const chunks: Uint8Array[] = []
    let rows = -1 // the header row
    const reader = res.body.getReader()
    for (let next = await reader.read(); next.done !== true; next = await reader.read()) {
      chunks.push(next.value)
      for (const byte of next.value) if (byte === 10) rows++
      setProgress({ label: t('exporting'), done: Math.max(0, rows), total: Number.isFinite(total) ? total : undefined })
    }
    const url = URL.createObjectURL(new Blob(chunks as BlobPart[], { type: 'text/csv' }))
    const link = document.createElement('a')
    link.href = url
    link.download = `${spec.key}.csv`
    link.click()
    setTimeout(() => { URL.revokeObjectURL(url) }, 10_000)
    setProgress(null)
    setSummary({ kind: 'ok', text: t('exported', { n: Math.max(0, rows).toLocaleString(document.documentElement.lang) }) })
  }

  const importCsv = async (file: File): Promise<void> => {
    setSummary(null)
    let records
    try {
      records = parseCsv(await file.text())
    } catch (err) {
      setSummary({ kind: 'error', text: `${file.name}: ${(err as Error).message}` })
      return
    }
    const [header, ...rows] = records
    const columns = (header ?? []).map((c) => c.text)
    const known = new Set(['id', ...spec.fields.map((f) => f.key)])
    const unknown = columns.filter((c) => !known.has(c))
    if (header === undefined || unknown.length > 0) {
      setSummary({ kind: 'error', text: t('importColumns', { columns: unknown.join(', '), expected: [...known].join(', ') }) })
      return
    }
    let added = 0
    const refused: string[] = []
    for (const [n, row] of rows.entries()) {
      setProgress({ label: t('importing'), done: n, total: rows.length })
      const values: Record<string, string> = {}
      columns.forEach((column, i) => { values[column] = row[i]?.text ?? '' })
      const result = await api.request('POST', endpoint.url, { accept: endpoint.accept, body: spec.createBody(values), exact: spec.exactIds })
      if (result.ok) added++
      else refused.push(`${t('line')} ${n + 2}: ${result.problem?.errors.map((e) => e.message).join(' ') ?? result.status}`)
    }
    setProgress(null)
    onImported()
    const text = t('imported', { n: added.toLocaleString(document.documentElement.lang), refused: refused.length })
    setSummary({ kind: refused.length === 0 ? 'ok' : 'warn', text: refused.length === 0 ? text : `${text} ${refused.slice(0, 5).join(' · ')}` })
  }

  return (
    <div class="transfer">
      <button type="button" onClick={() => { void exportCsv() }} disabled={progress !== null}>{t('exportCsv')}</button>
      <button type="button" onClick={() => { picker.current?.click() }} disabled={progress !== null}>{t('importCsv')}</button>
      <input ref={picker} type="file" accept=".csv,text/csv" class="visually-hidden" tabIndex={-1} aria-hidden="true"
        onChange={(e) => { const file = (e.currentTarget as HTMLInputElement).files?.[0]; if (file !== undefined) void importCsv(file); (e.currentTarget as HTMLInputElement).value = '' }} />
      {progress !== null && (
        <span class="transfer-progress" role="status">
          <label>{progress.label} <progress max={progress.total ?? undefined} value={progress.total === undefined ? undefined : progress.done} /> {progress.done.toLocaleString(document.documentElement.lang)}{progress.total === undefined ? '' : ` / ${progress.total.toLocaleString(document.documentElement.lang)}`}</label>
        </span>
      )}
      {summary !== null && <p class={`notice ${summary.kind} transfer-summary`} role="status">{summary.text}</p>}
    </div>
  )
}
