import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { Api } from '../api.js'
import type { Change } from '../feed.js'
import type { Translate } from '../i18n.js'
import { Listing, type Endpoint, type ListQuery, type Outcome, type Page, type Sort } from '../listing.js'
import { splitProblem, type FieldWording, type Problem, type SplitProblem } from '../problem.js'
import { fieldMessage } from '../../../src/http/errors/messages/fields.js'
import { queryFromSearch, searchOf } from '../view-state.js'
import { Filters } from './Filters.js'
import { Pager } from './Pager.js'
import { formValues, say, toRecord, type Rec, type ResourceSpec } from '../resources.js'
import { AddForm, type CreateOutcome } from './AddForm.js'
import { DeleteDialog, type PendingDelete } from './DeleteDialog.js'
import { deleteButtonId, EditRow, editButtonId, editInputId, RecordRow, type EditState } from './RecordRow.js'

/** Changes reported by the feed, a burst at a time, or a reset (reload) with when the feed (re)connected. */
export type ChangeListener = (changes: readonly Change[] | { reset: number }) => void
export interface ChangeBus {
  subscribe: (listener: ChangeListener) => () => void
}

interface Props {
  spec: ResourceSpec
  endpoint: Endpoint
  api: Api
  t: Translate
  changes: ChangeBus
  /** Changes when the page must reload its data (a token was given). */
  epoch: number
  /** Move the focus to the view's heading when it appears (the person switched views). */
  focusHeading: boolean
  /** The feed has answered (or there is none): the first read of the list may go. */
  ready: boolean
}

interface Status {
  kind: 'ok' | 'warn' | 'error'
  text: string
}

/** More changes than this in one burst: no highlight per row, just the refreshed page. */
const FLASH_AT_MOST = 10
const FLASH_MS = 2_500
const SEARCH_DELAY_MS = 300
// Longer than the feed's fold window (150 ms), so a burst delivered in several folds still reads once.
const REFRESH_DELAY_MS = 400
const NO_ERRORS: SplitProblem = Object.freeze({ fields: Object.freeze({}), general: Object.freeze([]) as unknown as string[] })

function focusById (id: string): void {
  // After the next render, when the element exists.
  setTimeout(() => { document.getElementById(id)?.focus() }, 0)
}

/**
 * One collection (students or addresses): search, sortable columns, paging,
 * add, edit in place, delete with confirmation; live changes from the feed.
 */
export function ResourceView ({ spec, endpoint, api, t, changes, epoch, focusHeading, ready }: Props) {
  const listing = useMemo(() => new Listing(api, spec, endpoint), [api, spec, endpoint])
  const [query, setQueryState] = useState<ListQuery>(() => queryFromSearch(location.search, spec))
  const [search, setSearch] = useState(query.q)
  /** How the next view state reaches the URL: a new history entry, in place (typing), or not at all (Back/Forward). */
  const navigation = useRef<'push' | 'replace' | 'none'>('replace')
  const setQuery = (next: ListQuery | ((q: ListQuery) => ListQuery), how: 'push' | 'replace' = 'push'): void => {
    navigation.current = how
    setQueryState(next)
  }
  const [page, setPage] = useState<Page | undefined>(undefined)
  const [loading, setLoading] = useState(true)
  const [loadProblem, setLoadProblem] = useState<Problem | undefined>(undefined)
  const [editing, setEditing] = useState<EditState | null>(null)
  const [pendingDelete, setPendingDelete] = useState<PendingDelete | null>(null)
  const [status, setStatus] = useState<Status | null>(null)
  const [flashing, setFlashing] = useState<ReadonlySet<string>>(new Set())
  const url = (id: string): string => `${endpoint.url}/${encodeURIComponent(id)}`
  const fieldKeys = spec.fields.map((f) => f.key)
  const editingRef = useRef(editing)
  editingRef.current = editing

  const problemText = (problem: Problem): string => {
    if (problem.network === true) return t('networkError')
    if (problem.status === 403) return t('forbidden')
    const messages = problem.errors.map((e) => e.message)
    const text = messages.length > 0 ? messages.join(' ') : (problem.title ?? t('serverError', { status: problem.status }))
    return problem.status >= 500 && problem.traceId !== undefined ? `${text} ${t('reference', { id: problem.traceId })}` : text
  }

  const word: FieldWording = (code, key, blank) => {
    const field = spec.fields.find((f) => f.key === key)
    return field === undefined ? undefined : fieldMessage(t.lang, code, { ...field, label: say(t, field.label) }, blank)
  }

  /** The URL says what is shown: the query and, past the first page, where. */
  const syncUrl = (): void => {
    const how = navigation.current
    navigation.current = 'replace'
    if (how === 'none') return
    const position = listing.position()
    const search = searchOf({ ...query, ...position })
    if (search === location.search) return
    history[how === 'push' ? 'pushState' : 'replaceState'](null, '', location.pathname + search)
  }

  const show = async (work: Promise<Outcome>): Promise<void> => {
    setLoading(true)
    const outcome = await work
    if (!outcome.ok && 'stale' in outcome) return
    setLoading(false)
    if (!outcome.ok) { setLoadProblem(outcome.problem); return }
    setLoadProblem(undefined)
    setPage(listing.page())
    syncUrl()
  }

  const flash = (id: string): void => {
    setFlashing((current) => new Set(current).add(id))
    setTimeout(() => { setFlashing((current) => { const next = new Set(current); next.delete(id); return next }) }, FLASH_MS)
  }

  // A server-side page is fetched again shortly after changes, once for a burst of them.
  const refreshTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const scheduleRefresh = (): void => {
    clearTimeout(refreshTimer.current)
    refreshTimer.current = setTimeout(() => { void show(listing.refresh()) }, REFRESH_DELAY_MS)
  }

  /**
   * Every change, made here or elsewhere, goes through the listing the same way. `read`: only a fresher copy
   * of a row (read before an edit or delete): it moves nothing, so the page is not read again.
   */
  const applyChange = (kind: 'created' | 'replaced' | 'deleted', id: string, record?: Rec, read = false): void => {
    const refetch = listing.apply(kind, id, record)
    setPage(listing.page())
    if (kind !== 'deleted' && !read) flash(id)
    if (refetch && !read) scheduleRefresh()
  }

  const warnEditor = (change: Change): void => {
    const edit = editingRef.current
    if (edit !== null && edit.id === change.id && change.kind !== 'created') {
      // Warn now; saving would be refused (412) and show the new version anyway.
      setEditing({ ...edit, notice: { kind: 'warn', lines: [t(change.kind === 'deleted' ? 'gone' : 'changedElsewhere')] } })
    }
  }

  useEffect(() => { if (ready) void show(listing.setQuery(query)) }, [listing, query, ready])
  // Back and Forward: the view the URL names, without a new history entry.
  useEffect(() => {
    const onPop = (): void => {
      const next = queryFromSearch(location.search, spec)
      setSearch(next.q)
      setQuery(next, 'replace')
      navigation.current = 'none'
    }
    addEventListener('popstate', onPop)
    return () => { removeEventListener('popstate', onPop) }
  }, [spec])
  // A new token: read again (not on mount, where the query effect reads already).
  const mountEpoch = useRef(epoch)
  useEffect(() => { if (epoch !== mountEpoch.current) void show(listing.refresh()) }, [epoch])
  useEffect(() => {
    if (focusHeading) document.getElementById(`heading-${spec.key}`)?.focus()
    return () => { clearTimeout(refreshTimer.current) }
  }, [])

  // The search box queries once typing pauses.
  useEffect(() => {
    if (search === query.q) return
    const timer = setTimeout(() => { setQuery((q) => ({ ...q, q: search, cursor: undefined, page: 0 }), 'replace') }, SEARCH_DELAY_MS)
    return () => { clearTimeout(timer) }
  }, [search])

  useEffect(() => changes.subscribe((batch) => {
    if ('reset' in batch) {
      // A list read sent after the feed (re)connected already holds everything the feed would have told.
      const readAt = listing.lastReadAt
      if (readAt === undefined || readAt >= batch.reset) return
      void show(listing.refresh())
      return
    }
    const mine = batch.filter((change) => change.service === spec.key)
    if (mine.length === 0) return
    if (mine.length <= FLASH_AT_MOST) {
      for (const change of mine) { applyChange(change.kind, change.id, change.record); warnEditor(change) }
      return
    }
    // A burst: the listing takes every change, the page is drawn once and read again once.
    let refetch = false
    for (const change of mine) refetch = listing.apply(change.kind, change.id, change.record) || refetch
    setPage(listing.page())
    if (refetch) scheduleRefresh()
    const edit = editingRef.current
    const last = edit === null ? undefined : mine.findLast((change) => change.id === edit.id)
    if (last !== undefined) warnEditor(last)
  }), [changes, listing, t])

  // ----- add
  /**
   * The record a create would replace under the count rule (the next id is the number held, which a
   * record may hold after a delete), or undefined. Two reads; the create's Replaced-Record header is the truth.
   */
  const recordAtNextId = async (): Promise<Rec | undefined> => {
    const counted = await api.request('GET', `${endpoint.url}?limit=1&count=true`, { accept: endpoint.accept, exact: spec.exactIds })
    const total = counted.headers.get('x-total-count')
    if (!counted.ok || total === null) return undefined
    // A filtered list, not GET /students/<id>: a free id is then an empty page, not a 404 in the console.
    const held = await api.request('GET', `${endpoint.url}?id=${total}&limit=1`, { accept: endpoint.accept, exact: spec.exactIds })
    const items = (held.body as { items?: unknown } | undefined)?.items
    return held.ok && Array.isArray(items) ? toRecord(items[0]) : undefined
  }

  const create = async (values: Record<string, string>, replaceConfirmed = false): Promise<CreateOutcome> => {
    if (endpoint.countIds === true && !replaceConfirmed) {
      const taken = await recordAtNextId()
      if (taken !== undefined) return { ok: false, confirm: t('replaceWarning', { id: taken.id, what: spec.describe(taken) }) }
    }
    const result = await api.request('POST', endpoint.url, { accept: endpoint.accept, body: spec.createBody(values), exact: spec.exactIds })
    const record = toRecord(result.body)
    if (result.ok && record !== undefined) {
      const replaced = result.headers.get('replaced-record') !== null
      applyChange(replaced ? 'replaced' : 'created', record.id, record)
      setStatus({ kind: replaced ? 'warn' : 'ok', text: t(replaced ? 'addedReplacing' : 'added', { what: spec.describe(record), id: record.id }) })
      return { ok: true }
    }
    const problem = result.problem ?? { status: result.status, errors: [] }
    const errors = splitProblem(problem, fieldKeys, word)
    if (errors.general.length === 0 && Object.keys(errors.fields).length === 0) errors.general.push(problemText(problem))
    return { ok: false, errors }
  }

  // ----- edit
  const readCurrent = async (id: string): Promise<{ record: Rec, etag?: string } | { gone: true } | { problem: Problem }> => {
    const result = await api.request('GET', url(id), { accept: endpoint.accept, exact: spec.exactIds })
    const record = toRecord(result.body)
    if (result.ok && record !== undefined) return { record, etag: result.headers.get('etag') ?? undefined }
    if (result.status === 404) return { gone: true }
    return { problem: result.problem ?? { status: result.status, errors: [] } }
  }

  const gone = (id: string, record?: Rec): void => {
    applyChange('deleted', id)
    setStatus({ kind: 'error', text: `${record === undefined ? '' : spec.describe(record) + ': '}${t('gone')}` })
  }

  const startEdit = async (record: Rec): Promise<void> => {
    setEditing({ id: record.id, values: formValues(spec, record), errors: NO_ERRORS, loading: true, busy: false })
    const first = spec.fields.find((f) => f.editable)
    if (first !== undefined) focusById(editInputId(spec, record.id, first.key))
    const current = await readCurrent(record.id)
    // The person may have cancelled, or started on another row, meanwhile.
    const stillThis = (e: EditState | null): e is EditState => e !== null && e.id === record.id
    if ('gone' in current) {
      setEditing((e) => stillThis(e) ? null : e)
      gone(record.id, record)
      return
    }
    if ('problem' in current) {
      setEditing((e) => stillThis(e) ? { ...e, loading: false, notice: { kind: 'error', lines: [problemText(current.problem)] } } : e)
      return
    }
    applyChange('replaced', record.id, current.record, true)
    setEditing((e) => stillThis(e) ? { ...e, loading: false, etag: current.etag, values: formValues(spec, current.record) } : e)
  }

  const cancelEdit = (): void => {
    const id = editing?.id
    setEditing(null)
    if (id !== undefined) focusById(editButtonId(spec, id))
  }

  const save = async (): Promise<void> => {
    const edit = editing
    if (edit === null || edit.loading || edit.busy) return
    setEditing({ ...edit, busy: true })
    const result = await api.request('PUT', url(edit.id), { accept: endpoint.accept, body: spec.replaceBody(edit.values), ifMatch: edit.etag, exact: spec.exactIds })
    const record = toRecord(result.body)
    if (result.ok && record !== undefined) {
      setEditing(null)
      applyChange('replaced', record.id, record)
      setStatus({ kind: 'ok', text: t('saved', { what: spec.describe(record) }) })
      focusById(editButtonId(spec, record.id))
      return
    }
    if (result.status === 412) {
      // Someone else changed it since we read it: show what is stored now, keep what was typed in view.
      const yours = spec.fields.filter((f) => f.editable).map((f) => `${say(t, f.label)}: ${edit.values[f.key] ?? ''}`).join(', ')
      const current = await readCurrent(edit.id)
      if ('gone' in current) { setEditing(null); gone(edit.id); return }
      if ('problem' in current) {
        setEditing({ ...edit, busy: false, notice: { kind: 'error', lines: [problemText(current.problem)] } })
        return
      }
      applyChange('replaced', edit.id, current.record)
      setEditing({
        ...edit,
        busy: false,
        etag: current.etag,
        values: formValues(spec, current.record),
        errors: NO_ERRORS,
        notice: { kind: 'warn', lines: [t('conflict'), t('yourChanges', { values: yours })] }
      })
      return
    }
    if (result.status === 404) { setEditing(null); gone(edit.id); return }
    const problem = result.problem ?? { status: result.status, errors: [] }
    const errors = splitProblem(problem, spec.fields.filter((f) => f.editable).map((f) => f.key), word)
    if (errors.general.length === 0 && Object.keys(errors.fields).length === 0) errors.general.push(problemText(problem))
    setEditing({ ...edit, busy: false, errors, notice: undefined })
    const first = spec.fields.find((f) => errors.fields[f.key] !== undefined)
    if (first !== undefined) focusById(editInputId(spec, edit.id, first.key))
  }

  // ----- delete
  const askDelete = async (record: Rec): Promise<void> => {
    const current = await readCurrent(record.id)
    if ('gone' in current) { gone(record.id, record); return }
    if ('problem' in current) { setStatus({ kind: 'error', text: problemText(current.problem) }); return }
    applyChange('replaced', record.id, current.record, true)
    setPendingDelete({ record: current.record, etag: current.etag, busy: false })
  }

  const closeDelete = (focusId?: string): void => {
    setPendingDelete(null)
    if (focusId !== undefined) focusById(focusId)
  }

  const confirmDelete = async (): Promise<void> => {
    const pending = pendingDelete
    if (pending === null || pending.busy) return
    setPendingDelete({ ...pending, busy: true })
    const { record } = pending
    const result = await api.request('DELETE', url(record.id), { accept: endpoint.accept, ifMatch: pending.etag, exact: spec.exactIds })
    if (result.ok) {
      closeDelete(`search-${spec.key}`)
      applyChange('deleted', record.id)
      setStatus({ kind: 'ok', text: t('deleted', { what: spec.describe(record) }) })
      return
    }
    if (result.status === 404) { closeDelete(`search-${spec.key}`); gone(record.id, record); return }
    if (result.status === 412) {
      const current = await readCurrent(record.id)
      if ('gone' in current) { closeDelete(`search-${spec.key}`); gone(record.id, record); return }
      if ('record' in current) {
        applyChange('replaced', record.id, current.record)
        setPendingDelete({ record: current.record, etag: current.etag, busy: false, notice: { kind: 'warn', text: t('deleteConflict') } })
        return
      }
    }
    setPendingDelete({ ...pending, busy: false, notice: { kind: 'error', text: problemText(result.problem ?? { status: result.status, errors: [] }) } })
  }

  // ----- querying
  /** Pages on; when the button pressed becomes disabled (first or last page), focus moves to the other one. */
  const turn = async (direction: 'first' | 'previous' | 'next' | 'last'): Promise<void> => {
    if (direction === 'first') { setQuery({ ...query, cursor: undefined, page: 0 }); focusById(`next-${spec.key}`); return }
    navigation.current = 'push'
    await show(direction === 'next' ? listing.next() : direction === 'last' ? listing.last() : listing.previous())
    const after = listing.page()
    if ((direction === 'next' || direction === 'last') && !after.hasNext) focusById(`previous-${spec.key}`)
    if (direction === 'previous' && !after.hasPrev) focusById(`next-${spec.key}`)
  }

  const sortBy = (field: string): void => {
    const current = query.sort
    const sort: Sort = current?.field === field ? { field, desc: !current.desc } : { field, desc: false }
    setQuery({ ...query, sort, cursor: undefined, page: 0 })
  }
  const sortValue = query.sort === undefined ? '' : `${query.sort.desc ? '-' : ''}${query.sort.field}`
  const chooseSort = (value: string): void => {
    setQuery({ ...query, sort: value === '' ? undefined : { field: value.replace(/^-/, ''), desc: value.startsWith('-') }, cursor: undefined, page: 0 })
  }
  const columns = [{ key: 'id', label: t('id'), numeric: true }, ...spec.fields.map((f) => ({ key: f.key, label: say(t, f.label), numeric: f.kind === 'integer' }))]
  const ariaSort = (key: string): 'ascending' | 'descending' | undefined =>
    query.sort?.field === key ? (query.sort.desc ? 'descending' : 'ascending') : (key === 'id' && query.sort === undefined ? 'ascending' : undefined)

  const rows = page?.rows ?? []
  const filtered = query.q.trim() !== '' || Object.keys(query.filters).length > 0
  const headingId = `heading-${spec.key}`

  return (
    <section aria-labelledby={headingId} data-listing={listing.mode}>
      <h1 id={headingId} tabIndex={-1}>{say(t, spec.title)}</h1>
      <div class="banner-slot">
        <p role="status" class={status === null ? 'visually-hidden' : `notice ${status.kind}`}>{status?.text ?? ''}</p>
      </div>

      <AddForm spec={spec} t={t} create={create} />

      <div class="toolbar">
        <div class="search">
          <label for={`search-${spec.key}`}>{t('search')}</label>
          <input id={`search-${spec.key}`} type="search" value={search} aria-describedby={`search-hint-${spec.key}`}
            onInput={(e) => { setSearch((e.currentTarget as HTMLInputElement).value) }}
            onKeyDown={(e) => { if (e.key === 'Enter') setQuery({ ...query, q: search, cursor: undefined, page: 0 }) }} />
          <span id={`search-hint-${spec.key}`} class="muted">{say(t, spec.searchHint)}</span>
        </div>
        <div class="field sort-bar">
          <label for={`sort-${spec.key}`}>{t('sortBy')}</label>
          <select id={`sort-${spec.key}`} value={sortValue} onChange={(e) => { chooseSort((e.currentTarget as HTMLSelectElement).value) }}>
            <option value="">{t('sortDefault')}</option>
            {spec.fields.flatMap((f) => [
              <option key={f.key} value={f.key}>{`${say(t, f.label)} (${t('ascending')})`}</option>,
              <option key={`-${f.key}`} value={`-${f.key}`}>{`${say(t, f.label)} (${t('descending')})`}</option>
            ])}
          </select>
        </div>
        <button type="button" onClick={() => { void show(listing.refresh()) }}>{t('reload')}</button>
      </div>

      <Filters spec={spec} t={t} filters={query.filters} onChange={(filters) => { setQuery({ ...query, filters, cursor: undefined, page: 0 }) }} />

      {loadProblem !== undefined && (
        <div class="notice error" role="alert">
          <p>{problemText(loadProblem)}</p>
          <button type="button" onClick={() => { void show(listing.refresh()) }}>{t('retry')}</button>
        </div>
      )}

      <table class="records" aria-busy={loading ? 'true' : undefined}>
        <caption class="visually-hidden">{say(t, spec.title)}</caption>
        <colgroup>
          <col class="id" />
          {spec.fields.map((f) => <col key={f.key} />)}
          <col class="actions" />
        </colgroup>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.key} scope="col" class={c.numeric ? 'num' : undefined} aria-sort={ariaSort(c.key)}>
                <button type="button" class="sort" onClick={() => { sortBy(c.key) }}>
                  {c.label}
                  <span class="sort-mark" aria-hidden="true">{ariaSort(c.key) === 'ascending' ? '▲' : ariaSort(c.key) === 'descending' ? '▼' : '↕'}</span>
                </button>
              </th>
            ))}
            <th scope="col" class="actions"><span class="visually-hidden">{t('actions')}</span></th>
          </tr>
        </thead>
        <tbody>
          {rows.map((record) => editing?.id === record.id
            ? <EditRow key={record.id} spec={spec} t={t} record={record} edit={editing}
                onChange={(field, value) => { setEditing((e) => e === null ? e : { ...e, values: { ...e.values, [field]: value } }) }}
                onSave={() => { void save() }} onCancel={cancelEdit} />
            : <RecordRow key={record.id} spec={spec} t={t} record={record} flash={flashing.has(record.id)}
                onEdit={() => { void startEdit(record) }} onDelete={() => { void askDelete(record) }} />)}
        </tbody>
      </table>
      {!loading && page !== undefined && rows.length === 0 && (
        <p class="muted">{!filtered ? t('noRecords') : t('noMatches', { q: query.q.trim() })}</p>
      )}
      {loading && page === undefined && <p class="muted">{t('loading')}</p>}

      <Pager idPrefix={spec.key} t={t} page={page} limit={query.limit} canLast={listing.mode === 'client'}
        onLimit={(limit) => { setQuery({ ...query, limit, cursor: undefined, page: 0 }) }} onTurn={(to) => { void turn(to) }} />

      {pendingDelete !== null && (
        <DeleteDialog spec={spec} t={t} pending={pendingDelete} onConfirm={() => { void confirmDelete() }}
          onCancel={() => { const id = pendingDelete.record.id; closeDelete(listing.find(id) === undefined ? `search-${spec.key}` : deleteButtonId(spec, id)) }} />
      )}
    </section>
  )
}
