import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { Api } from '../api.js'
import type { Change, FeedStatus } from '../feed.js'
import type { Translate } from '../i18n.js'
import { Listing, type Endpoint, type ListQuery, type Outcome, type Page, type Sort } from '../listing.js'
import { splitProblem, type FieldWording, type Problem } from '../problem.js'
import { fieldMessage, invalidRuleOf } from '../../../src/http/errors/messages/fields.js'
import { hiddenFromSearch, queryFromSearch, searchOf, type Columns } from '../view-state.js'
import { Filters } from './Filters.js'
import { Pager } from './Pager.js'
import { say, toRecord, type Rec, type ResourceSpec } from '../resources.js'
import { AddForm, type CreateOutcome } from './AddForm.js'
import { DeleteDialog } from './DeleteDialog.js'
import { deleteButtonId } from './RecordRow.js'
import { RecordTable } from './RecordTable.js'
import { Toolbar } from './Toolbar.js'
import { Transfer } from './Transfer.js'
import { useDelete } from './useDelete.js'
import { useEditor } from './useEditor.js'
import { useSelection } from './useSelection.js'
import { BulkBar } from './BulkBar.js'
import { ColumnChooser } from './ColumnChooser.js'
import { hiddenColumns, rememberHiddenColumns } from '../columns.js'
import { focusById, type Status, type ViewContext } from './view-context.js'
import { AttemptableContext, may, useAttemptable } from '../operations.js'

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
  /** The change feed's connection: when it is live again, banners saying the server could not be reached go. */
  live?: FeedStatus
}

/** More changes than this in one burst: no highlight per row, just the refreshed page. */
const FLASH_AT_MOST = 10
const FLASH_MS = 2_500
/** How long a success message stays. */
const STATUS_FADE_MS = 10_000
const SEARCH_DELAY_MS = 300
// Longer than the feed's fold window (150 ms), so a burst delivered in several folds still reads once.
const REFRESH_DELAY_MS = 400

/**
 * One collection (students or addresses): search, sortable columns, paging,
 * add, edit in place, delete with confirmation; live changes from the feed.
 */
export function ResourceView ({ spec, endpoint, api, t, changes, epoch, focusHeading, ready, live }: Props) {
  const listing = useMemo(() => new Listing(api, spec, endpoint), [api, spec, endpoint])
  const [query, setQueryState] = useState<ListQuery>(() => queryFromSearch(location.search, spec))
  const [search, setSearch] = useState(query.q)
  // Feed handlers and timers outlive the render that made them: they read the query shown now.
  const queryRef = useRef(query)
  queryRef.current = query
  /** How the next view state reaches the URL: a new history entry, in place (typing), or not at all (Back/Forward). */
  const navigation = useRef<'push' | 'replace' | 'none'>('replace')
  const setQuery = (next: ListQuery | ((q: ListQuery) => ListQuery), how: 'push' | 'replace' = 'push'): void => {
    navigation.current = how
    setQueryState(next)
  }
  const [page, setPage] = useState<Page | undefined>(undefined)
  const [loading, setLoading] = useState(true)
  const [loadProblem, setLoadProblem] = useState<Problem | undefined>(undefined)
  const [status, setStatus] = useState<Status | null>(null)
  // A success message fades after a while (it would otherwise stay over the form); warnings and errors stay until replaced.
  useEffect(() => {
    if (status?.kind !== 'ok') return
    const timer = setTimeout(() => { setStatus((current) => current === status ? null : current) }, STATUS_FADE_MS)
    return () => { clearTimeout(timer) }
  }, [status])
  const [flashing, setFlashing] = useState<ReadonlySet<string>>(new Set())
  /** The columns hidden: those the URL leaves out, else those the person hid last in this browser; the table shows the rest. */
  const [hidden, setHidden] = useState(() => hiddenFromSearch(location.search, spec) ?? hiddenColumns(spec.key))
  /** Whether the URL names the columns when none is hidden: it did, or the person chose (so a link never falls back on another browser's choice). */
  const columnsNamed = useRef(hiddenFromSearch(location.search, spec) !== undefined)
  const hiddenRef = useRef(hidden)
  hiddenRef.current = hidden
  const columnsOf = (keys: ReadonlySet<string>): Columns => ({ spec, hidden: keys, named: columnsNamed.current })
  const tableSpec = useMemo(() => hidden.size === 0 ? spec : { ...spec, fields: spec.fields.filter((f) => !hidden.has(f.key)) }, [spec, hidden])
  /** A choice of columns is a view of its own: remembered as this collection's default, and a new entry in the history (Back restores the columns before). */
  const chooseColumns = (next: ReadonlySet<string>): void => {
    rememberHiddenColumns(spec.key, next)
    const here = { ...queryRef.current, ...listing.position() }
    // The entry left names its columns, so Back shows them rather than the choice just remembered.
    columnsNamed.current = true
    const before = searchOf(here, columnsOf(hiddenRef.current))
    if (before !== location.search) history.replaceState(null, '', location.pathname + before)
    setHidden(next)
    const search = searchOf(here, columnsOf(next))
    if (search !== location.search) history.pushState(null, '', location.pathname + search)
  }
  // What the record rules let this token attempt: New, Edit and Delete go when never allowed.
  const attemptable = useAttemptable(api, spec.key, epoch)
  const fieldKeys = spec.fields.map((f) => f.key)

  const problemText = (problem: Problem): string => {
    if (problem.network === true) return t('networkError')
    // A record rule's refusal says what the server said (RULE_DENIED, OWNER_MISMATCH); a missing scope, the page's words.
    if (problem.status === 403 && !problem.errors.some((e) => e.error === 'RULE_DENIED' || e.error === 'OWNER_MISMATCH')) return t('forbidden')
    const messages = problem.errors.map((e) => e.message)
    const text = messages.length > 0 ? messages.join(' ') : (problem.title ?? t('serverError', { status: problem.status }))
    return problem.status >= 500 && problem.traceId !== undefined ? `${text} ${t('reference', { id: problem.traceId })}` : text
  }

  const word: FieldWording = (code, key, blank, detail) => {
    const field = spec.fields.find((f) => f.key === key)
    return field === undefined ? undefined : fieldMessage(t.lang, code, { ...field, label: say(t, field.label) }, blank, invalidRuleOf(detail))
  }

  /** The URL says what is shown: the query and, past the first page, where. */
  const syncUrl = (): void => {
    const how = navigation.current
    navigation.current = 'replace'
    if (how === 'none') return
    const position = listing.position()
    const search = searchOf({ ...queryRef.current, ...position }, columnsOf(hiddenRef.current))
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
  /** A deleted record leaves the selection (set once the selection exists, below). */
  const forgetRef = useRef<(id: string) => void>(() => {})
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
    if (kind === 'deleted') forgetRef.current(id)
    const refetch = listing.apply(kind, id, record)
    setPage(listing.page())
    if (kind !== 'deleted' && !read) flash(id)
    if (refetch && !read) scheduleRefresh()
  }

  // Banners follow the connection: once the feed reaches the server again, "could not be reached" is no longer true.
  useEffect(() => {
    if (live !== 'live') return
    setStatus((current) => current?.text === t('networkError') ? null : current)
    if (loadProblem?.network === true) void show(listing.refresh())
  }, [live])

  const gone = (id: string, record?: Rec): void => {
    applyChange('deleted', id)
    setStatus({ kind: 'error', text: `${record === undefined ? '' : spec.describe(record) + ': '}${t('gone')}` })
  }

  const ctx: ViewContext = { spec, endpoint, api, t, applyChange, gone, setStatus, problemText, word }
  const { editing, setEditing, editingRef, startEdit, cancelEdit, save } = useEditor(ctx)
  const { pendingDelete, askDelete, closeDelete, confirmDelete } = useDelete(ctx)
  const selection = useSelection(ctx)
  forgetRef.current = selection.forget
  // The token may write until a write is refused for its scopes (403): then no selection is offered.
  useEffect(() => { if (status?.kind === 'error' && status.text === t('forbidden')) selection.setForbidden(true) }, [status])
  // A new token: offered again.
  useEffect(() => { selection.setForbidden(false) }, [epoch])
  const mayWrite = !selection.forbidden
  // The selection is of this page's rows: another page, sort or filter starts afresh.
  useEffect(() => { selection.clear() }, [query])

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
      const named = hiddenFromSearch(location.search, spec)
      columnsNamed.current = named !== undefined
      setHidden(named ?? hiddenColumns(spec.key))
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
    const record = toRecord(result.body, spec)
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

  // ----- querying
  /** Pages on; when the button pressed becomes disabled (first or last page), focus moves to the other one. */
  const turn = async (direction: 'first' | 'previous' | 'next' | 'last'): Promise<void> => {
    if (direction === 'first') { setQuery({ ...query, cursor: undefined, page: 0 }); focusById(`next-${spec.key}`); return }
    navigation.current = 'push'
    selection.clear()
    await show(direction === 'next' ? listing.next() : direction === 'last' ? listing.last() : listing.previous())
    const after = listing.page()
    if ((direction === 'next' || direction === 'last') && !after.hasNext) focusById(`previous-${spec.key}`)
    if (direction === 'previous' && !after.hasPrev) focusById(`next-${spec.key}`)
  }

  /** A page by its number (one the listing can reach). */
  const jump = async (index: number): Promise<void> => {
    navigation.current = 'push'
    selection.clear()
    await show(listing.jump(index))
  }

  const sortBy = (field: string): void => {
    const current = query.sort
    const sort: Sort = current?.field === field ? { field, desc: !current.desc } : { field, desc: false }
    setQuery({ ...query, sort, cursor: undefined, page: 0 })
  }
  const rows = page?.rows ?? []
  const filtered = query.q.trim() !== '' || Object.keys(query.filters).length > 0
  const headingId = `heading-${spec.key}`

  return (
    <AttemptableContext.Provider value={attemptable}>
    <section aria-labelledby={headingId} data-listing={listing.mode}>
      <h1 id={headingId} tabIndex={-1} {...(spec.description === undefined ? {} : { 'aria-describedby': `description-${spec.key}` })}>{say(t, spec.title)}</h1>
      {/* The declaration's words about the collection, in the one language it was written in. */}
      {spec.description !== undefined && <p id={`description-${spec.key}`} class="collection-description muted">{spec.description}</p>}
      <div class="banner-slot">
        <p role="status" class={status === null ? 'visually-hidden' : `notice ${status.kind}`}>{status?.text ?? ''}</p>
      </div>

      {may(attemptable, 'create') && <AddForm spec={spec} t={t} create={create} />}

      <Toolbar spec={spec} t={t} search={search} sort={query.sort} onSearch={setSearch}
        onSearchNow={() => { setQuery({ ...query, q: search, cursor: undefined, page: 0 }) }}
        onSort={(sort) => { setQuery({ ...query, sort, cursor: undefined, page: 0 }) }}
        onReload={() => { void show(listing.refresh()) }} />

      <Transfer spec={spec} t={t} api={api} endpoint={endpoint} query={query} onImported={() => { void show(listing.refresh()) }} />

      <Filters spec={spec} t={t} filters={query.filters} onChange={(filters) => { setQuery({ ...query, filters, cursor: undefined, page: 0 }) }} />

      {loadProblem !== undefined && (
        <div class="notice error" role="alert">
          <p>{problemText(loadProblem)}</p>
          <button type="button" onClick={() => { void show(listing.refresh()) }}>{t('retry')}</button>
        </div>
      )}

      {mayWrite && <BulkBar spec={spec} t={t} count={selection.selected.size} busy={selection.busy}
        onRun={(action) => { void selection.run(action) }} onClear={selection.clear}
        untickedOnPage={rows.filter((r) => !selection.selected.has(r.id)).length} onSelectPage={() => { void selection.toggle(rows, true) }} />}

      <ColumnChooser spec={spec} t={t} hidden={hidden} onChange={chooseColumns} />

      <RecordTable spec={tableSpec} t={t} rows={rows} sort={query.sort} loading={loading} editing={editing} flashing={flashing}
        onSort={sortBy} onEdit={(record) => { void startEdit(record) }} onDelete={(record) => { void askDelete(record) }}
        onEditChange={(field, value) => { setEditing((e) => e === null ? e : { ...e, values: { ...e.values, [field]: value } }) }}
        onSave={() => { void save() }} onCancel={cancelEdit}
        selected={mayWrite ? new Set(selection.selected.keys()) : undefined} onSelect={(records, on) => { void selection.toggle(records, on) }} />
      {!loading && page !== undefined && rows.length === 0 && (
        <p class="muted">{!filtered ? t('noRecords') : t('noMatches', { q: query.q.trim() })}</p>
      )}
      {loading && page === undefined && <p class="muted">{t('loading')}</p>}

      <Pager idPrefix={spec.key} t={t} page={page} limit={query.limit} canLast={listing.mode === 'client'}
        onLimit={(limit) => { setQuery({ ...query, limit, cursor: undefined, page: 0 }) }} onTurn={(to) => { void turn(to) }}
        numbers={page === undefined ? undefined : listing.pageNumbers()} onJump={(index) => { void jump(index) }} />

      {pendingDelete !== null && (
        <DeleteDialog spec={spec} t={t} pending={pendingDelete} onConfirm={() => { void confirmDelete() }}
          onCancel={() => { const id = pendingDelete.record.id; closeDelete(listing.find(id) === undefined ? `search-${spec.key}` : deleteButtonId(spec, id)) }} />
      )}
    </section>
    </AttemptableContext.Provider>
  )
}
