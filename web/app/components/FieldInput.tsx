import type { Translate } from '../i18n.js'
import { inputModeOf, say, type FieldSpec } from '../resources.js'
import { BooleanChoices } from './BooleanChoices.js'
import { EnumChoices } from './EnumChoices.js'
import { describedBy, FieldMessages } from './FieldMessages.js'
import { ReferencePicker } from './ReferencePicker.js'

interface Props {
  t: Translate
  field: FieldSpec
  /** The control's id; its messages are `<id>-error`. */
  id: string
  value: string
  onChange: (value: string) => void
  /** The service's messages about this field. */
  messages?: readonly string[]
  disabled?: boolean
}

/**
 * One field of a form, labelled by its declared title: a select for a
 * boolean or an enum, else a text input; a required field is marked (a
 * star for the eye, aria-required for a screen reader).
 */
export function FieldInput ({ t, field, id, value, onChange, messages, disabled }: Props) {
  const required = field.required === true ? { 'aria-required': 'true' as const } : {}
  return (
    <div class="field">
      {/* The star beside the label, not in it: the field's accessible name stays its label (aria-required says the rest). */}
      <span class="label-line"><label for={id}>{say(t, field.label)}</label>{field.required === true && <span class="required-mark" aria-hidden="true"> *</span>}</span>
      {field.kind === 'boolean' || field.allowed !== undefined
        ? (
          <select id={id} name={field.key} value={value} disabled={disabled} {...required}
            onChange={(e) => { onChange((e.currentTarget as HTMLSelectElement).value) }}
            {...describedBy(`${id}-error`, messages)}>
            {field.allowed !== undefined ? <EnumChoices t={t} allowed={field.allowed} /> : <BooleanChoices t={t} />}
          </select>
          )
        : (
          <input id={id} name={field.key} type="text" inputMode={inputModeOf(field)} autoComplete={field.autocomplete} value={value} readOnly={disabled} {...required}
            list={field.references === undefined ? undefined : `${id}-options`}
            onInput={(e) => { onChange((e.currentTarget as HTMLInputElement).value) }}
            {...describedBy(`${id}-error`, messages)} />
          )}
      {/* A reference: typed words search the collection it names; its records are offered by name. */}
      {field.references !== undefined && <ReferencePicker collection={field.references} id={id} value={value} />}
      <FieldMessages id={`${id}-error`} messages={messages} />
    </div>
  )
}
