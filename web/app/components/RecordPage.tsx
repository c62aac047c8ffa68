import type { ComponentChild } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import type { Api } from '../api.js'
import { may, useAttemptable } from '../operations.js'
import type { Translate } from '../i18n.js'
import type { Endpoint } from '../listing.js'
import { navigate } from '../navigation.js'
import { splitProblem, type FieldWording, type Problem, type SplitProblem } from '../problem.js'
import { recordWords } from '../record-words.js'
import { formValues, referenceLabel, say, toRecord, type Rec, type ResourceSpec } from '../resources.js'
import { APP_BASE } from '../view-state.js'
import { fieldMessage, invalidRuleOf } from '../../../src/http/errors/messages/fields.js'
import { BackRelations, type View } from './BackRelations.js'
import { DeleteDialog, type PendingDelete } from './DeleteDialog.js'
import { FieldInput } from './FieldInput.js'
import { RecordHistory } from './RecordHistory.js'
import { ReferenceLink } from './ReferenceLink.js'
import type { ChangeBus } from './ResourceView.js'
import { focusById, NO_ERRORS, type Status } from './view-context.js'

interface Props {
  spec: ResourceSpec
  endpoint: Endpoint
  api: Api
  t: Translate
  /** The record's id, as its address names it. */
  id: string
  /** Every collection the page shows: those whose records refer to this one are listed under it. */
  views: readonly View[]
  changes: ChangeBus
  /** Changes when a token was given: the record is read again. */
  epoch: number
  /** The change feed's history of one record (`/events/history`), when the server has a feed. */
  history?: string
}

type Loaded = { record: Rec, etag?: string } | { missing: true } | { problem: Problem }

/** While editing: what is typed, the service's refusals, and a notice (a conflict). */
interface Editing {
  values: Record<string, string>
  errors: SplitProblem
  busy: boolean
  notice?: string[]
}

/**
 * One record's own page (`/app/books/7`): every field under its label,
 * references as links to their records, edit and delete (each against the
 * version read, by its ETag), and the records that refer to this one.
 */
export function RecordPage ({ spec, endpoint, api, t, id, views, changes, epoch, history }: Props) {
  // Edit and Delete go when the record rules never allow them this token (../operations.ts).
  const attemptable = useAttemptable(api, spec.key, epoch)
  const w = recordWords(t.lang)
  const [loaded, setLoaded] = useState<Loaded | undefined>(undefined)
  const [editing, setEditing] = useState<Editing | null>(null)
  const [status, setStatus] = useState<Status | null>(null)
  const [pendingDelete, setPendingDelete] = useState<PendingDelete | null>(null)
  const url = `${endpoint.url}/${encodeURIComponent(id)}`
  const collection = say(t, spec.title)
  const listPath = APP_BASE + spec.key

  const read = async (): Promise<Loaded> => {
    // The references' labels come with the record (`expand`), as they do with the list.
    const result = await api.request('GET', spec.listParams === undefined ? url : `${url}?${spec.listParams}`, { accept: endpoint.accept, exact: spec.exactIds })
    const record = toRecord(result.body, spec)
    if (result.ok && record !== undefined) return { record, etag: result.headers.get('etag') ?? undefined }
    if (result.status === 404) return { missing: true }
    return { problem: result.problem ?? { status: result.status, errors: [] } }
  }
  const reload = async (): Promise<Loaded> => { const now = await read(); setLoaded(now); return now }

  useEffect(() => { focusById('record-heading') }, [id])
  useEffect(() => { void reload() }, [id, epoch])

  // A change made elsewhere: shown at once, or (while editing) said, so the save is not a surprise 412.
  useEffect(() => changes.subscribe((batch) => {
    if ('reset' in batch) { void reload(); return }
    const mine = batch.filter((change) => change.service === spec.key && change.id === id)
    if (mine.length === 0) return
    setEditing((e) => e === null ? e : { ...e, notice: [t(mine.some((c) => c.kind === 'deleted') ? 'gone' : 'changedElsewhere')] })
    void reload()
  }), [changes, id])

  const word: FieldWording = (code, key, blank, detail) => {
    const field = spec.fields.find((f) => f.key === key)
    return field === undefined ? undefined : fieldMessage(t.lang, code, { ...field, label: say(t, field.label) }, blank, invalidRuleOf(detail))
  }
  const problemText = (problem: Problem): string => {
    if (problem.network === true) return t('networkError')
    if (problem.status === 403) return t('forbidden')
    const messages = problem.errors.map((e) => e.message)
    return messages.length > 0 ? messages.join(' ') : (problem.title ?? t('serverError', { status: problem.status }))
  }

  const record = loaded !== undefined && 'record' in loaded ? loaded.record : undefined
  const what = record === undefined ? `#${id}` : spec.describe(record) || `#${id}`

  const startEdit = (): void => {
    if (record === undefined) return
    setStatus(null)
    setEditing({ values: formValues(spec, record), errors: NO_ERRORS, busy: false })
    const first = spec.fields.find((f) => f.editable && f.readOnly !== true)
    if (first !== undefined) focusById(`record-${first.key}`)
  }

  const save = async (event: Event): Promise<void> => {
    event.preventDefault()
    if (editing === null || editing.busy || loaded === undefined || !('record' in loaded)) return
    setEditing({ ...editing, busy: true })
    const result = await api.request('PUT', url, { accept: endpoint.accept, body: spec.replaceBody(editing.values), ifMatch: loaded.etag, exact: spec.exactIds })
    if (result.ok) {
      const now = await reload()
      setEditing(null)
      setStatus({ kind: 'ok', text: t('saved', { what: 'record' in now ? spec.describe(now.record) || `#${id}` : what }) })
      focusById('record-edit')
      return
    }
    if (result.status === 412) {
      // Changed meanwhile: the current version is shown, and what was typed is said, not lost.
      const yours = spec.fields.filter((f) => f.editable).map((f) => `${say(t, f.label)}: ${editing.values[f.key] ?? ''}`).join(', ')
      const now = await reload()
      if ('record' in now) setEditing({ values: formValues(spec, now.record), errors: NO_ERRORS, busy: false, notice: [t('conflict'), t('yourChanges', { values: yours })] })
      else setEditing(null)
      return
    }
    if (result.status === 404) { setEditing(null); setLoaded({ missing: true }); return }
    const problem = result.problem ?? { status: result.status, errors: [] }
    const errors = splitProblem(problem, spec.fields.filter((f) => f.editable).map((f) => f.key), word)
    if (errors.general.length === 0 && Object.keys(errors.fields).length === 0) errors.general.push(problemText(problem))
    setEditing({ ...editing, busy: false, errors, notice: undefined })
    const first = spec.fields.find((f) => errors.fields[f.key] !== undefined)
    if (first !== undefined) focusById(`record-${first.key}`)
  }

  const askDelete = async (): Promise<void> => {
    const now = await reload()
    if ('record' in now) setPendingDelete({ record: now.record, etag: now.etag, busy: false })
  }

  const confirmDelete = async (): Promise<void> => {
    const pending = pendingDelete
    if (pending === null || pending.busy) return
    setPendingDelete({ ...pending, busy: true })
    const result = await api.request('DELETE', url, { accept: endpoint.accept, ifMatch: pending.etag, exact: spec.exactIds })
    if (result.ok || result.status === 404) {
      setPendingDelete(null)
      setLoaded({ missing: true })
      setStatus({ kind: result.ok ? 'ok' : 'error', text: result.ok ? t('deleted', { what }) : t('gone') })
      focusById('record-back')
      return
    }
    if (result.status === 412) {
      const now = await reload()
      if ('record' in now) { setPendingDelete({ record: now.record, etag: now.etag, busy: false, notice: { kind: 'warn', text: t('deleteConflict') } }); return }
    }
    setPendingDelete({ ...pending, busy: false, notice: { kind: 'error', text: problemText(result.problem ?? { status: result.status, errors: [] }) } })
  }

  const cell = (key: string): ComponentChild => {
    if (record === undefined) return null
    const field = spec.fields.find((f) => f.key === key)
    const value = record[key]
    if (field === undefined || value === undefined) return ''
    if (field.references !== undefined) return <ReferenceLink target={field.references} id={String(value)} label={referenceLabel(record, key)} />
    if (field.kind === 'boolean') return t(value === true ? 'yes' : 'no')
    return String(value)
  }

  return (
    <section aria-labelledby="record-heading" class="record-page">
      <p><a id="record-back" href={listPath} onClick={(e) => { navigate(listPath, e) }}>← {w('backTo', { collection })}</a></p>
      <h1 id="record-heading" tabIndex={-1}>{collection}: {what}</h1>
      <div class="banner-slot">
        <p role="status" class={status === null ? 'visually-hidden' : `notice ${status.kind}`}>{status?.text ?? ''}</p>
      </div>
      {loaded === undefined && <p class="muted">{t('loading')}</p>}
      {loaded !== undefined && 'missing' in loaded && status?.kind !== 'ok' && <p class="notice warn">{w('notFound', { collection, id })}</p>}
      {loaded !== undefined && 'problem' in loaded && (
        <div class="notice error" role="alert">
          <p>{problemText(loaded.problem)}</p>
          <button type="button" onClick={() => { void reload() }}>{t('retry')}</button>
        </div>
      )}
      {record !== undefined && editing === null && (
        <>
          <dl class="record-summary record-fields" aria-label={w('fields')}>
            <dt>{t('id')}</dt><dd>{record.id}</dd>
            {spec.fields.map((f) => [<dt key={`t${f.key}`}>{say(t, f.label)}</dt>, <dd key={`d${f.key}`}>{cell(f.key)}</dd>])}
          </dl>
          <div class="form-actions">
            {may(attemptable, 'update') && <button type="button" id="record-edit" class="primary" onClick={startEdit}>{t('edit')}</button>}
            {may(attemptable, 'delete') && <button type="button" id="record-delete" class="danger" onClick={() => { void askDelete() }}>{t('delete')}</button>}
          </div>
        </>
      )}
      {record !== undefined && editing !== null && (
        <form noValidate onSubmit={(e) => { void save(e) }}>
          <fieldset class="add-form">
            <legend>{w('editing')}: {what}</legend>
            {editing.notice !== undefined && <div class="notice warn" role="alert">{editing.notice.map((line, i) => <p key={i}>{line}</p>)}</div>}
            <div class="fields">
              {spec.fields.filter((f) => f.readOnly !== true).map((field) => field.editable
                ? <FieldInput key={field.key} t={t} field={field} id={`record-${field.key}`} value={editing.values[field.key] ?? ''} messages={editing.errors.fields[field.key]} disabled={editing.busy}
                    onChange={(value) => { setEditing((e) => e === null ? e : { ...e, values: { ...e.values, [field.key]: value } }) }} />
                : <div class="field" key={field.key}><span class="label">{say(t, field.label)}</span><span>{editing.values[field.key]} <span class="kept">({t('nameKeptShort')})</span></span></div>)}
            </div>
            <div class="form-actions">
              <button type="submit" class="primary" disabled={editing.busy}>{t('save')}</button>
              <button type="button" onClick={() => { setEditing(null); focusById('record-edit') }}>{t('cancel')}</button>
              {editing.errors.general.length > 0 && <p class="field-error" role="alert">{editing.errors.general.join(' ')}</p>}
            </div>
          </fieldset>
        </form>
      )}
      {record !== undefined && <BackRelations api={api} t={t} spec={spec} id={record.id} views={views} />}
      {history !== undefined && loaded !== undefined && !('problem' in loaded) && <RecordHistory api={api} t={t} spec={spec} id={id} url={history} changes={changes} epoch={epoch} />}
      {pendingDelete !== null && (
        <DeleteDialog spec={spec} t={t} pending={pendingDelete} onConfirm={() => { void confirmDelete() }}
          onCancel={() => { setPendingDelete(null); focusById('record-delete') }} />
      )}
    </section>
  )
}
