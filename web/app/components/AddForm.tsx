import { useRef, useState } from 'preact/hooks'
import type { Translate } from '../i18n.js'
import type { SplitProblem } from '../problem.js'
import { say, type ResourceSpec } from '../resources.js'
import { FieldInput } from './FieldInput.js'

/** What a create did: done; refused, with the service's reasons; or held back until the person confirms (`confirm` says why). */
export type CreateOutcome = { ok: true } | { ok: false, errors: SplitProblem } | { ok: false, confirm: string }

interface Props {
  spec: ResourceSpec
  t: Translate
  /** `replaceConfirmed`: the person has read the warning a first attempt gave and adds anyway. */
  create: (values: Record<string, string>, replaceConfirmed?: boolean) => Promise<CreateOutcome>
}

const NO_ERRORS: SplitProblem = { fields: {}, general: [] }

/**
 * The form that adds a record. The browser's own validation is off
 * (novalidate): the service decides what is valid, and its messages appear
 * next to the fields they name.
 */
export function AddForm ({ spec, t, create }: Props) {
  // A declared default fills its field at first: what the server stores when it is left out.
  const empty = () => Object.fromEntries(spec.fields.map((f) => [f.key, f.initial ?? '']))
  const [values, setValues] = useState<Record<string, string>>(empty)
  const [errors, setErrors] = useState<SplitProblem>(NO_ERRORS)
  const [busy, setBusy] = useState(false)
  /** The warning a create gave before saving (the count rule would replace a record): shown with "Add anyway" and "Cancel". */
  const [warning, setWarning] = useState<string | undefined>(undefined)
  const form = useRef<HTMLFormElement>(null)
  const prefix = `add-${spec.key}`

  const submit = async (event: Event | undefined, replaceConfirmed = false): Promise<void> => {
    event?.preventDefault()
    if (busy) return
    setBusy(true)
    const outcome = await create(values, replaceConfirmed)
    setBusy(false)
    setWarning(undefined)
    if (outcome.ok) {
      setValues(empty())
      setErrors(NO_ERRORS)
      form.current?.querySelector<HTMLInputElement>('input')?.focus()
      return
    }
    if ('confirm' in outcome) {
      setWarning(outcome.confirm)
      setTimeout(() => { document.getElementById(`${prefix}-confirm`)?.focus() }, 0)
      return
    }
    setErrors(outcome.errors)
    // Take the person to the first field the service complained about.
    const first = spec.fields.find((f) => outcome.errors.fields[f.key] !== undefined)
    if (first !== undefined) document.getElementById(`${prefix}-${first.key}`)?.focus()
  }

  return (
    <form ref={form} noValidate onSubmit={(e) => { void submit(e) }}>
      <fieldset class="add-form">
        <legend>{say(t, spec.legend)}</legend>
        <div class="fields">
          {spec.fields.filter((field) => field.readOnly !== true).map((field) => (
            <FieldInput key={field.key} t={t} field={field} id={`${prefix}-${field.key}`} value={values[field.key] ?? ''} messages={errors.fields[field.key]}
              onChange={(value) => { setValues((v) => ({ ...v, [field.key]: value })) }} />
          ))}
        </div>
        <div class="form-actions">
          <button type="submit" class="primary">{say(t, spec.addButton)}</button>
          {errors.general.length > 0 && <p class="field-error" role="alert">{errors.general.join(' ')}</p>}
        </div>
        {warning !== undefined && (
          <div class="notice warn replace-warning" role="alert">
            <p>{warning}</p>
            <button type="button" id={`${prefix}-confirm`} class="danger" onClick={() => { void submit(undefined, true) }}>{t('addAnyway')}</button>
            <button type="button" onClick={() => { setWarning(undefined) }}>{t('cancel')}</button>
          </div>
        )}
      </fieldset>
    </form>
  )
}
