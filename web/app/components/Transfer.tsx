import { useRef, useState } from 'preact/hooks'
import type { Api } from '../api.js'
import { chunkRows, runBulk } from '../bulk-import.js'
import { errorReport, planImport, type ImportPlan, type LineError, type PlannedRow } from '../import-plan.js'
import type { Translate } from '../i18n.js'
import type { Endpoint, ListQuery } from '../listing.js'
import { say, toRecord, type FieldSpec, type Rec, type ResourceSpec } from '../resources.js'
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

/** Records written at once by an import: enough to hide each request's round trip, few enough to leave the server room. */
const CONCURRENT_WRITES = 8
/** Rows of the file shown in the preview. */
const PREVIEW_ROWS = 5

/** The count rule's replacements an import would make: how many, and the record held at the first id it reaches. */
interface Replacing {
  replaced: number
  record: Rec
}

interface Preview {
  file: string
  plan: ImportPlan
  /** The new records (rows without an id) as the bulk creates that will carry them. */
  chunks: PlannedRow[][]
  replacing?: Replacing
}

interface Progress {
  label: string
  done: number
  total?: number
}

/**
 * Export and Import of CSV files, with progress. Export streams the server's
 * CSV of the view's filters and sort (`Accept: text/csv`, every matching
 * record) into a file. Import first shows what it would do (the column
 * mapping, the first rows typed as `rqs import` types them, the lines it
 * cannot read, the count rule's replacements) and writes nothing until the
 * person confirms; then the new records go as bulk creates (one request when
 * the file fits the server's limits, so all or nothing; else chunks, each
 * stored whole or not at all, cancellable between them), rows with an id are
 * put at their id, and the page says how many were added, replaced and
 * refused, and which lines were stored.
 */
export function Transfer ({ spec, t, api, endpoint, query, onImported }: Props) {
  const [progress, setProgress] = useState<Progress | null>(null)
  const [summary, setSummary] = useState<{ kind: 'ok' | 'warn' | 'error', text: string, report?: LineError[] } | null>(null)
  const [preview, setPreview] = useState<Preview | null>(null)
  /** Chunked imports: stop at the first refused chunk (the default), or send the others. */
  const [allOrNothing, setAllOrNothing] = useState(true)
  /** Stops an import under way: no further record is sent (those sent are written). */
  const cancel = useRef<(() => void) | undefined>(undefined)
  const picker = useRef<HTMLInputElement>(null)

  const exportCsv = async (): Promise<void> => {
    const params = new URLSearchParams(searchOf({ ...query, cursor: undefined, page: 0 }).slice(1))
    params.delete('limit')
    params.set('count', 'true')
    // Asked for as a file (Content-Disposition), as a link to the export would be (issue 37).
    params.set('download', 'true')
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
    saveFile(new Blob(chunks as BlobPart[], { type: 'text/csv' }), `${spec.key}.csv`)
    setProgress(null)
    setSummary({ kind: 'ok', text: t('exported', { n: Math.max(0, rows).toLocaleString(document.documentElement.lang) }) })
  }

  // ----- import: read the file into a plan, show it, write only when the person says so
  const labelOf = (field: FieldSpec): string => say(t, field.label)

  const pick = async (file: File): Promise<void> => {
    setSummary(null)
    setPreview(null)
    const read = planImport(await file.text(), spec, labelOf)
    if ('problem' in read) {
      const { problem } = read
      const text = 'idRefused' in problem
        ? t('importIdRefused')
        : 'empty' in problem
          ? t('importEmpty')
          : [t('importColumns', { columns: problem.unknown.join(', '), expected: problem.expected.join(', ') }),
              problem.separator === undefined ? '' : t('importSeparator', { separator: problem.separator === '\t' ? 'Tab' : problem.separator })].join(' ').trim()
      setSummary({ kind: 'error', text: `${file.name}: ${text}` })
      return
    }
    const { plan } = read
    const replacing = endpoint.countIds === true && plan.errors.length === 0 && plan.rows.length > 0 ? await countRuleReplacements(plan.rows.length) : undefined
    setAllOrNothing(true)
    setPreview({ file: file.name, plan, chunks: chunkRows(plan.rows.filter((row) => row.id === undefined)), replacing })
    setTimeout(() => { document.getElementById(`import-${spec.key}-start`)?.focus() }, 0)
  }

  /**
   * How many of `n` creates the count rule turns into replacements: the server gives each the number of
   * records held as its id, so creates add records up to the first held id at or past that number, and
   * from there each replaces the record at that id (the first a record held now, then the import's own).
   */
  const countRuleReplacements = async (n: number): Promise<Replacing | undefined> => {
    const counted = await api.request('GET', `${endpoint.url}?limit=1&count=true`, { accept: endpoint.accept })
    const total = Number(counted.headers.get('x-total-count') ?? Number.NaN)
    if (!counted.ok || !Number.isSafeInteger(total)) return undefined
    const held = await api.request('GET', `${endpoint.url}?${new URLSearchParams({ 'id[gte]': String(total), sort: 'id', limit: '1' }).toString()}`, { accept: endpoint.accept })
    const items = (held.body as { items?: unknown } | undefined)?.items
    const first = held.ok && Array.isArray(items) ? toRecord(items[0]) : undefined
    if (first === undefined) return undefined
    const replaced = n - Math.min(n, Number(first.id) - total)
    return replaced > 0 ? { replaced, record: first } : undefined
  }

  /** The records held, by the count (the count rule: what a bulk create added is what the count grew by). */
  const countHeld = async (): Promise<number | undefined> => {
    const counted = await api.request('GET', `${endpoint.url}?limit=1&count=true`, { accept: endpoint.accept })
    const total = Number(counted.headers.get('x-total-count') ?? Number.NaN)
    return counted.ok && Number.isSafeInteger(total) ? total : undefined
  }

  /**
   * New records (rows without an id) go as bulk creates, each chunk stored
   * whole or not at all (one request when the file fits one: all or
   * nothing); rows with an id are then put one by one at their id, as before.
   */
  const runImport = async (plan: ImportPlan, chunks: PlannedRow[][], allOrNothing: boolean): Promise<void> => {
    setPreview(null)
    const cancelled = { now: false }
    cancel.current = () => { cancelled.now = true }
    const lang = document.documentElement.lang
    const total = plan.rows.length
    const byId = plan.rows.filter((row) => row.id !== undefined)
    setProgress({ label: t('importing'), done: 0, total })
    const before = endpoint.countIds === true ? await countHeld() : undefined
    const bulk = await runBulk(chunks, {
      send: async (chunk, key) => {
        const result = await api.request('POST', endpoint.url, { accept: endpoint.accept, body: chunk.map((row) => row.body), exact: spec.exactIds, idempotencyKey: key })
        return result.ok
          ? { ok: true, created: Array.isArray(result.body) ? result.body.length : chunk.length }
          : { ok: false, status: result.status, problem: result.problem }
      },
      allOrNothing,
      cancelled: () => cancelled.now,
      onProgress: (done) => { setProgress({ label: t('importing'), done, total }) }
    })
    let created = bulk.created
    let replaced = 0
    if (before !== undefined && created > 0) {
      // The count rule: a create given a held id replaced that record, and the count did not grow.
      const after = await countHeld()
      if (after !== undefined) {
        replaced = Math.max(0, created - (after - before))
        created -= replaced
      }
    }
    const refused: LineError[] = [...bulk.lines]
    let refusedRows = bulk.refusedChunks.reduce((n, c) => n + c.rows, 0)
    let done = total - byId.length - bulk.unsent
    let unsent = bulk.unsent
    // Rows with ids only when every new record was stored (all or nothing) or the person chose to go on.
    if (byId.length > 0 && !cancelled.now && (bulk.refusedChunks.length === 0 || !allOrNothing)) {
      let next = 0
      let drawn = performance.now()
      // A few writes at a time: each PUT creates or replaces one record at its id.
      const worker = async (): Promise<void> => {
        while (!cancelled.now && next < byId.length) {
          const row = byId[next++] as PlannedRow
          const result = await api.request('PUT', `${endpoint.url}/${row.id ?? ''}`, { accept: endpoint.accept, body: row.body, exact: spec.exactIds })
          if (!result.ok) {
            refusedRows++
            refused.push({ line: row.line, reason: result.problem?.errors.map((e) => e.message).join(' ') ?? String(result.status) })
          } else if (result.status === 200) replaced++
          else created++
          done++
          // The bar is drawn at most every 100 ms: a render per record would cost more than the write.
          if (performance.now() - drawn >= 100) {
            drawn = performance.now()
            setProgress({ label: t('importing'), done, total })
          }
        }
      }
      await Promise.all(Array.from({ length: CONCURRENT_WRITES }, worker))
      unsent += byId.length - next
    } else unsent += byId.length
    cancel.current = undefined
    setProgress(null)
    onImported()
    const n = (value: number): string => value.toLocaleString(lang)
    const lines = (span: { from: number, to: number }): string => span.from === span.to ? n(span.from) : `${n(span.from)}–${n(span.to)}`
    const text = [
      replaced === 0
        ? t('imported', { n: n(created), refused: n(refusedRows) })
        : t('importDone', { n: n(created), replaced: n(replaced), refused: n(refusedRows) }),
      bulk.refusedChunks.length === 0
        ? ''
        : bulk.stored.length === 0
          ? created + replaced === 0 ? t('importNothingStored') : ''
          : t('importChunksStored', { size: n(chunks[0]?.length ?? 0), lines: bulk.stored.map(lines).join(', '), refused: bulk.refusedChunks.map(lines).join(', ') }),
      bulk.unanswered.length === 0 ? '' : t('importUnanswered', { lines: bulk.unanswered.map(lines).join(', ') }),
      unsent > 0 && !cancelled.now ? t('importNotSent', { n: n(unsent) }) : '',
      cancelled.now ? t('importCancelled', { done: n(done), total: n(total) }) : '',
      [...refused.sort((a, b) => a.line - b.line).slice(0, 5).map((e) => `${t('line')} ${e.line}: ${e.reason}`), ...bulk.general.slice(0, 2)].join(' · ')
    ].filter((part) => part !== '').join(' ')
    const clean = refusedRows === 0 && bulk.unanswered.length === 0 && replaced === 0 && !cancelled.now && unsent === 0
    setSummary({ kind: clean ? 'ok' : created === 0 && replaced === 0 ? 'error' : 'warn', text, report: refused.length === 0 ? undefined : refused })
  }

  const download = (errors: readonly LineError[]): void => {
    saveFile(new Blob([errorReport(errors)], { type: 'text/csv' }), `${spec.key}-import-errors.csv`)
  }

  const lang = document.documentElement.lang
  const busy = progress !== null
  const prefix = `import-${spec.key}`
  return (
    <div class="transfer">
      <button type="button" onClick={() => { void exportCsv() }} disabled={busy}>{t('exportCsv')}</button>
      <button type="button" onClick={() => { picker.current?.click() }} disabled={busy}>{t('importCsv')}</button>
      <input ref={picker} type="file" accept=".csv,text/csv" class="visually-hidden" tabIndex={-1} aria-hidden="true"
        onChange={(e) => { const file = (e.currentTarget as HTMLInputElement).files?.[0]; if (file !== undefined) void pick(file); (e.currentTarget as HTMLInputElement).value = '' }} />
      {progress !== null && (
        <span class="transfer-progress" role="status">
          <label>{progress.label} <progress max={progress.total ?? undefined} value={progress.total === undefined ? undefined : progress.done} /> {progress.done.toLocaleString(lang)}{progress.total === undefined ? '' : ` / ${progress.total.toLocaleString(lang)}`}</label>
          {cancel.current !== undefined && <button type="button" class="import-cancel" onClick={() => { cancel.current?.() }}>{t('cancel')}</button>}
        </span>
      )}
      {preview !== null && (
        <section class="import-preview" aria-labelledby={`${prefix}-title`}>
          <p id={`${prefix}-title`}>{t('importPreview', { file: preview.file, n: preview.plan.rows.length.toLocaleString(lang) })}</p>
          <p class="import-mapping">{t('importMapping')}: {preview.plan.mapping.map((m) => {
            const field = spec.fields.find((f) => f.key === m.field)
            return `${m.header} → ${field === undefined ? m.field : labelOf(field)}`
          }).join(', ')}</p>
          {preview.plan.rows.length > 0 && (
            <table class="import-rows">
              <thead><tr><th scope="col">{t('line')}</th>{preview.plan.mapping.map((m) => <th scope="col" key={m.field}>{m.field}</th>)}</tr></thead>
              <tbody>
                {preview.plan.rows.slice(0, PREVIEW_ROWS).map((row) => (
                  <tr key={row.line} data-line={row.line}>
                    <td>{row.line}</td>
                    {preview.plan.mapping.map((m) => <td key={m.field}>{m.field === 'id' ? row.id ?? '' : shown(row.body[m.field])}</td>)}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {preview.plan.errors.length > 0 && (
            <div class="notice error import-errors" role="alert">
              <p>{t('importBadLines', { n: preview.plan.errors.length.toLocaleString(lang) })} {preview.plan.errors.slice(0, 5).map((e) => `${t('line')} ${e.line}: ${e.reason}`).join(' · ')}</p>
              <button type="button" onClick={() => { download(preview.plan.errors) }}>{t('importReport')}</button>
            </div>
          )}
          {preview.replacing !== undefined && (
            <p class="notice warn replace-warning" role="alert">
              {t('importReplaceWarning', { replaced: preview.replacing.replaced, n: preview.plan.rows.length, id: preview.replacing.record.id, what: spec.describe(preview.replacing.record) })}
            </p>
          )}
          {preview.plan.errors.length === 0 && preview.chunks.length > 0 && (
            <p class="import-requests">
              {preview.chunks.length === 1
                ? t('importOneRequest', { n: (preview.chunks[0]?.length ?? 0).toLocaleString(lang) })
                : t('importChunked', { chunks: preview.chunks.length.toLocaleString(lang), size: (preview.chunks[0]?.length ?? 0).toLocaleString(lang) })}
              {preview.chunks.length > 1 && (
                <label class="import-all-or-nothing">
                  {' '}<input type="checkbox" checked={allOrNothing} onChange={(e) => { setAllOrNothing((e.currentTarget as HTMLInputElement).checked) }} /> {t('importStopAtRefused')}
                </label>
              )}
            </p>
          )}
          {preview.plan.errors.length === 0 && preview.plan.rows.some((row) => row.id !== undefined) && (
            <p class="import-by-id">{t('importById', { n: preview.plan.rows.filter((row) => row.id !== undefined).length.toLocaleString(lang) })}</p>
          )}
          <div class="form-actions">
            {preview.plan.errors.length === 0 && preview.plan.rows.length > 0 && (
              <button type="button" id={`${prefix}-start`} class={preview.replacing === undefined ? 'primary' : 'danger'} onClick={() => { void runImport(preview.plan, preview.chunks, allOrNothing) }}>
                {preview.replacing === undefined ? t('importStart', { n: preview.plan.rows.length.toLocaleString(lang) }) : t('importReplaceStart')}
              </button>
            )}
            <button type="button" id={preview.plan.errors.length === 0 && preview.plan.rows.length > 0 ? undefined : `${prefix}-start`} onClick={() => { setPreview(null) }}>{t('cancel')}</button>
          </div>
        </section>
      )}
      {summary !== null && (
        <div class={`notice ${summary.kind} transfer-summary`} role="status">
          {summary.text}
          {summary.report !== undefined && <> <button type="button" onClick={() => { download(summary.report ?? []) }}>{t('importReport')}</button></>}
        </div>
      )}
    </div>
  )
}

/** Saves a blob as a file the browser downloads. */
function saveFile (blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.click()
  setTimeout(() => { URL.revokeObjectURL(url) }, 10_000)
}

/** A typed cell as the preview shows it: what will be sent. */
function shown (value: unknown): string {
  return value === undefined ? '' : typeof value === 'string' ? value : String(value)
}
