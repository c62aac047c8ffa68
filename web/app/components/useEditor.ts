import { useRef, useState } from 'preact/hooks'
import { splitProblem } from '../problem.js'
import { formValues, say, toRecord, type Rec } from '../resources.js'
import { editButtonId, editInputId, type EditState } from './RecordRow.js'
import { focusById, NO_ERRORS, readCurrent, recordUrl, type ViewContext } from './view-context.js'

/**
 * Editing a row in place: the record is read first (its ETag goes with the save, so a change made
 * meanwhile is refused, shown, and nothing is lost); Enter saves, Escape cancels.
 */
export function useEditor (ctx: ViewContext) {
  const { spec, api, endpoint, t, applyChange, gone, setStatus, problemText, word } = ctx
  const [editing, setEditing] = useState<EditState | null>(null)
  const editingRef = useRef(editing)
  editingRef.current = editing

  const startEdit = async (record: Rec): Promise<void> => {
    setEditing({ id: record.id, values: formValues(spec, record), errors: NO_ERRORS, loading: true, busy: false })
    const first = spec.fields.find((f) => f.editable)
    if (first !== undefined) focusById(editInputId(spec, record.id, first.key))
    const current = await readCurrent(ctx, record.id)
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
    const result = await api.request('PUT', recordUrl(ctx, edit.id), { accept: endpoint.accept, body: spec.replaceBody(edit.values), ifMatch: edit.etag, exact: spec.exactIds })
    const record = toRecord(result.body, spec)
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
      const current = await readCurrent(ctx, edit.id)
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


  return { editing, setEditing, editingRef, startEdit, cancelEdit, save }
}
