import { useEffect, useState } from 'preact/hooks'
import type { Api } from '../api.js'
import type { Lang } from '../i18n.js'
import type { Problem } from '../problem.js'
import { constraintsOf, declarationOf, DECLARABLE_KINDS, draftOf, labelsRecords, newCollection, newField, type CollectionDraft, type FieldDraft } from '../schema-draft.js'

/**
 * The schema editor (for administrators: the admin API answers 403 to any
 * other token, which the editor shows): create a collection, add, change,
 * rename and remove its fields with their kinds and constraints (a form per
 * kind, from the server's registry of kinds), preview the plan the server
 * makes of the change, apply it against the version read (If-Match), and
 * read the collection's history. Its words are its own, in both languages.
 */

const TEXTS = {
  en: {
    title: 'Collections', collection: 'Collection', create: 'New collection…', name: 'Name', field: 'Field', kind: 'Kind', required: 'Required',
    initial: 'Default', removeField: 'Remove field', addField: 'Add field', preview: 'Preview the plan', apply: 'Apply', confirmDrop: 'I accept that values are lost',
    plan: 'Plan', history: 'History', applied: 'Applied: version', noChange: 'Nothing changes.', records: 'records held', close: 'Close', version: 'Version',
    added: 'added', dropped: 'dropped', renamed: 'renamed', converted: 'converted', indexed: 'indexed', unique: 'unique key', refused: 'refused', lost: 'values lost',
    blocked: 'blocked by records', network: 'The server did not answer.', ids: 'Ids', uniqueKeys: 'Unique keys', uniqueHint: 'e.g. isbn; title, year',
    label: 'Label field', labelRule: 'First required text field'
  },
  de: {
    title: 'Sammlungen', collection: 'Sammlung', create: 'Neue Sammlung…', name: 'Name', field: 'Feld', kind: 'Art', required: 'Pflichtfeld',
    initial: 'Vorgabe', removeField: 'Feld entfernen', addField: 'Feld hinzufügen', preview: 'Plan ansehen', apply: 'Anwenden', confirmDrop: 'Ich nehme in Kauf, dass Werte verloren gehen',
    plan: 'Plan', history: 'Verlauf', applied: 'Angewendet: Version', noChange: 'Nichts ändert sich.', records: 'gespeicherte Datensätze', close: 'Schließen', version: 'Version',
    added: 'hinzugefügt', dropped: 'entfernt', renamed: 'umbenannt', converted: 'umgewandelt', indexed: 'indiziert', unique: 'eindeutiger Schlüssel', refused: 'abgelehnt', lost: 'Werte gehen verloren',
    blocked: 'blockiert durch Datensätze', network: 'Der Server hat nicht geantwortet.', ids: 'IDs', uniqueKeys: 'Eindeutige Schlüssel', uniqueHint: 'z. B. isbn; title, year',
    label: 'Bezeichnendes Feld', labelRule: 'Erstes Pflicht-Textfeld'
  }
} as const

type Words = { readonly [K in keyof typeof TEXTS.en]: string }

/** A plan as the server answers it (src/domain/schema-plan.ts), read loosely. */
interface PlanAnswer {
  plan?: { action?: string, added?: Array<{ field: string, default?: unknown }>, dropped?: string[], renamed?: Array<{ from: string, to: string }>, converted?: Array<{ field: string, to: string }>, uniqueAdded?: string[][], indexed?: string[], refused?: string[], dropsData?: boolean }
  findings?: { records?: number, lost?: Record<string, number>, unconvertible?: Array<{ field: string, records: Array<{ id: unknown }> }>, duplicates?: Array<{ fields: string[], records: unknown[] }> }
}

interface HistoryItem { version: number, at: string, caller: string, plan?: PlanAnswer['plan'] }

export interface SchemaEditorProps {
  api: Api
  lang: Lang
  /** The collections declared now (GET /collections), to choose one. */
  declared: readonly string[]
  /** A change was applied: the page reads the collections again. */
  onApplied: () => void
  onClose: () => void
}

const NEW = ''

export function SchemaEditor ({ api, lang, declared, onApplied, onClose }: SchemaEditorProps) {
  const w: Words = TEXTS[lang]
  const [chosen, setChosen] = useState(NEW)
  const [newName, setNewName] = useState('')
  const [draft, setDraft] = useState<CollectionDraft>(newCollection)
  const [etag, setEtag] = useState<string | undefined>(undefined)
  const [plan, setPlan] = useState<PlanAnswer | undefined>(undefined)
  const [problem, setProblem] = useState<Problem | undefined>(undefined)
  const [done, setDone] = useState<string | undefined>(undefined)
  const [confirm, setConfirm] = useState(false)
  const [history, setHistory] = useState<HistoryItem[]>([])

  /** Reads the chosen collection's declaration, ETag and history (what the last action said stays shown). */
  const load = async (name: string): Promise<void> => {
    setConfirm(false)
    if (name === NEW) {
      setDraft(newCollection()); setEtag(undefined); setHistory([])
      return
    }
    const read = await api.request('GET', `/collections/${encodeURIComponent(name)}`, { accept: 'application/json' })
    if (!read.ok) { setProblem(read.problem); return }
    setDraft(draftOf((read.body as { declaration?: Record<string, unknown> }).declaration))
    setEtag(read.headers.get('etag') ?? undefined)
    const past = await api.request('GET', `/collections/${encodeURIComponent(name)}/history`, { accept: 'application/json' })
    setHistory(past.ok ? (past.body as { items: HistoryItem[] }).items : [])
  }
  useEffect(() => { void load(chosen) }, [chosen])

  const name = chosen === NEW ? newName.trim() : chosen
  const change = (row: number, patch: Partial<FieldDraft>): void => {
    setPlan(undefined)
    setDraft((d) => ({ ...d, fields: d.fields.map((f) => f.row === row ? { ...f, ...patch } : f) }))
  }

  const preview = async (): Promise<void> => {
    setProblem(undefined); setDone(undefined)
    const answer = await api.request('POST', `/collections/${encodeURIComponent(name)}/plan`, { accept: 'application/json', body: declarationOf(draft) })
    if (answer.ok) setPlan(answer.body as PlanAnswer)
    else { setPlan(undefined); setProblem(answer.problem) }
  }

  const apply = async (): Promise<void> => {
    setProblem(undefined); setDone(undefined)
    const body = declarationOf(draft)
    const answer = chosen === NEW
      ? await api.request('POST', '/collections', { accept: 'application/json', body: { name, ...body } })
      : await api.request('PUT', `/collections/${encodeURIComponent(name)}${confirm ? '?confirm=drop' : ''}`, { accept: 'application/json', body, ...(etag === undefined ? {} : { ifMatch: etag }) })
    if (!answer.ok) { setProblem(answer.problem); return }
    const applied = answer.body as PlanAnswer & { version?: number }
    onApplied()
    if (chosen === NEW) setChosen(name)
    else await load(name)
    setPlan(applied)
    setDone(`${w.applied} ${String(applied.version ?? '')}`)
  }

  return (
    <section class="schema-editor" aria-labelledby="schema-editor-title">
      <h2 id="schema-editor-title">{w.title}</h2>
      <p>
        <label>{w.collection}{' '}
          <select value={chosen} onChange={(e) => { setPlan(undefined); setProblem(undefined); setDone(undefined); setChosen((e.target as HTMLSelectElement).value) }}>
            <option value={NEW}>{w.create}</option>
            {declared.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
        {' '}<button type="button" onClick={onClose}>{w.close}</button>
      </p>
      {chosen === NEW && (
        <p>
          <label>{w.name}{' '}<input value={newName} pattern="[a-z][a-z0-9_-]*" onInput={(e) => { setNewName((e.target as HTMLInputElement).value) }} /></label>{' '}
          <label>{w.ids}{' '}
            <select value={draft.ids} onChange={(e) => { const ids = (e.target as HTMLSelectElement).value === 'uuid' ? 'uuid' : 'sequence'; setDraft((d) => ({ ...d, ids })) }}>
              <option value="sequence">sequence</option>
              <option value="uuid">uuid</option>
            </select>
          </label>
        </p>
      )}
      {draft.fields.map((field, i) => (
        <fieldset key={field.row} class="schema-field">
          <legend>{w.field} {i + 1}{field.original !== undefined && field.original !== field.name ? ` (${field.original} →)` : ''}</legend>
          <label>{w.name}{' '}<input value={field.name} onInput={(e) => { change(field.row, { name: (e.target as HTMLInputElement).value }) }} /></label>{' '}
          <label>{w.kind}{' '}
            <select value={field.kind} onChange={(e) => { change(field.row, { kind: (e.target as HTMLSelectElement).value as FieldDraft['kind'], constraints: {} }) }}>
              {DECLARABLE_KINDS.map((k) => <option key={k} value={k}>{k}</option>)}
            </select>
          </label>{' '}
          <label><input type="checkbox" checked={field.required} onChange={(e) => { change(field.row, { required: (e.target as HTMLInputElement).checked }) }} /> {w.required}</label>{' '}
          {constraintsOf(field.kind).map((keyword) => (
            <label key={keyword}>{keyword}{' '}<input size={8} value={field.constraints[keyword] ?? ''} onInput={(e) => { change(field.row, { constraints: { ...field.constraints, [keyword]: (e.target as HTMLInputElement).value } }) }} /> </label>
          ))}
          <label>{w.initial}{' '}<input size={8} value={field.initial} onInput={(e) => { change(field.row, { initial: (e.target as HTMLInputElement).value }) }} /></label>{' '}
          <button type="button" onClick={() => { setPlan(undefined); setDraft((d) => ({ ...d, fields: d.fields.filter((f) => f.row !== field.row) })) }}>{w.removeField}</button>
        </fieldset>
      ))}
      <p>
        <label>{w.uniqueKeys}{' '}<input value={draft.unique} placeholder={w.uniqueHint} onInput={(e) => { setPlan(undefined); const unique = (e.target as HTMLInputElement).value; setDraft((d) => ({ ...d, unique })) }} /></label>{' '}
        {/* The field a reference to a record shows (x-label): a text field, or the server's rule. */}
        <label>{w.label}{' '}
          <select value={draft.label === undefined ? '' : String(draft.label)} onChange={(e) => { setPlan(undefined); const row = Number((e.target as HTMLSelectElement).value); setDraft((d) => { const { label: _label, ...rest } = d; return row === 0 ? rest : { ...rest, label: row } }) }}>
            <option value="">{w.labelRule}</option>
            {draft.fields.filter((f) => labelsRecords(f.kind) && f.name.trim() !== '').map((f) => <option key={f.row} value={String(f.row)}>{f.name}</option>)}
          </select>
        </label>
      </p>
      <p class="schema-actions">
        <button type="button" onClick={() => { setDraft((d) => ({ ...d, fields: [...d.fields, newField()] })) }}>{w.addField}</button>{' '}
        <button type="button" disabled={name === ''} onClick={() => { void preview() }}>{w.preview}</button>{' '}
        <button type="button" disabled={name === ''} onClick={() => { void apply() }}>{w.apply}</button>{' '}
        {plan?.plan?.dropsData === true && chosen !== NEW && (
          <label><input type="checkbox" checked={confirm} onChange={(e) => { setConfirm((e.target as HTMLInputElement).checked) }} /> {w.confirmDrop}</label>
        )}
      </p>
      {done !== undefined && <p class="notice" role="status">{done}</p>}
      {problem !== undefined && (
        <div class="notice warn" role="alert">
          {problem.network === true ? w.network : (problem.errors.length > 0 ? problem.errors.map((e, i) => <p key={i}>{e.message}</p>) : <p>{problem.title ?? String(problem.status)}</p>)}
        </div>
      )}
      {plan !== undefined && <PlanView answer={plan} w={w} />}
      {history.length > 0 && (
        <>
          <h3>{w.history}</h3>
          <ol class="schema-history">
            {history.map((h) => <li key={h.version}>{w.version} {h.version} · {new Date(h.at).toLocaleString(lang)} · {h.caller} · {h.plan?.action ?? ''}</li>)}
          </ol>
        </>
      )}
    </section>
  )
}

/** A plan in lines: what each field goes through, what the records held lose or block. */
function PlanView ({ answer, w }: { answer: PlanAnswer, w: Words }) {
  const plan = answer.plan ?? {}
  const findings = answer.findings ?? {}
  const lines: string[] = []
  for (const a of plan.added ?? []) lines.push(`${a.field}: ${w.added}${a.default === undefined ? '' : ` (${JSON.stringify(a.default)})`}`)
  for (const r of plan.renamed ?? []) lines.push(`${r.from} → ${r.to}: ${w.renamed}`)
  for (const c of plan.converted ?? []) lines.push(`${c.field}: ${w.converted} → ${c.to}`)
  for (const d of plan.dropped ?? []) lines.push(`${d}: ${w.dropped} (${findings.lost?.[d] ?? 0} ${w.lost})`)
  for (const u of plan.uniqueAdded ?? []) lines.push(`${u.join(', ')}: ${w.unique}`)
  if ((plan.indexed ?? []).length > 0) lines.push(`${(plan.indexed ?? []).join(', ')}: ${w.indexed}`)
  for (const r of plan.refused ?? []) lines.push(`${w.refused}: ${r}`)
  for (const u of findings.unconvertible ?? []) lines.push(`${u.field}: ${w.blocked} ${u.records.map((r) => String(r.id)).join(', ')}`)
  for (const d of findings.duplicates ?? []) lines.push(`${d.fields.join(', ')}: ${w.blocked} ${d.records.map(String).join(', ')}`)
  return (
    <section class="schema-plan" aria-label={w.plan}>
      <h3>{w.plan}{plan.action === undefined ? '' : `: ${plan.action}`}{findings.records === undefined ? '' : ` (${findings.records} ${w.records})`}</h3>
      {lines.length === 0 ? <p>{w.noChange}</p> : <ul>{lines.map((l, i) => <li key={i}>{l}</li>)}</ul>}
    </section>
  )
}
