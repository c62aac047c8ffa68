import type { Kind } from '../../../domain/kinds/index.js'
/**
 * What is said about one field, in each language: ONE table for the server's
 * catalogue (which names the field by its key, `{field}`) and the web
 * application (which names it by the label beside it and knows its kind and
 * limits). The app imports this module at build time, as it does page-config.
 * Types only from here: it must stay importable by a browser bundle.
 */
export type FieldLanguage = 'en' | 'de'

export interface FieldTemplates {
  FIELD_REQUIRED: string
  FIELD_TYPE: string
  FIELD_TOO_SHORT: string
  FIELD_TOO_LONG: string
  FIELD_OUT_OF_RANGE: string
  FIELD_INVALID: string
  FIELD_INVALID_TEXT: string
  FIELD_READ_ONLY: string
  /** Where the field's kind or limits are known (the app): more exact words. */
  integer: string
  integerBetween: string
  number: string
  blank: string
  tooLongAtMost: string
  /** A declared bound alone, or both (a number's). */
  atLeast: string
  atMost: string
  between: string
  greaterThan: string
  lessThan: string
  /** An enum's values; a pattern's declared words (`x-hint` or description). */
  oneOf: string
  hinted: string
}

export const FIELD_TEMPLATES: Record<FieldLanguage, FieldTemplates> = {
  en: {
    FIELD_REQUIRED: '{field} is required.',
    FIELD_TYPE: '{field} has the wrong type.',
    FIELD_TOO_SHORT: '{field} is too short.',
    FIELD_TOO_LONG: '{field} is too long.',
    FIELD_OUT_OF_RANGE: '{field} is out of the allowed range.',
    FIELD_INVALID: '{field} is not valid.',
    FIELD_INVALID_TEXT: '{field} contains characters that cannot be stored.',
    FIELD_READ_ONLY: '{field} is set by the server and cannot be sent.',
    integer: '{field} must be a whole number.',
    integerBetween: '{field} must be a whole number from {minimum} to {maximum}.',
    number: '{field} must be a number.',
    blank: '{field} is required.',
    tooLongAtMost: '{field} must be at most {maximum} characters long.',
    atLeast: '{field} must be at least {minimum}.',
    atMost: '{field} must be at most {maximum}.',
    between: '{field} must be from {minimum} to {maximum}.',
    greaterThan: '{field} must be greater than {minimum}.',
    lessThan: '{field} must be less than {maximum}.',
    oneOf: '{field} must be one of: {allowed}.',
    hinted: '{field} is not valid: {hint}'
  },
  de: {
    FIELD_REQUIRED: '{field} ist erforderlich.',
    FIELD_TYPE: '{field} hat den falschen Typ.',
    FIELD_TOO_SHORT: '{field} ist zu kurz.',
    FIELD_TOO_LONG: '{field} ist zu lang.',
    FIELD_OUT_OF_RANGE: '{field} liegt außerhalb des erlaubten Bereichs.',
    FIELD_INVALID: '{field} ist ungültig.',
    FIELD_INVALID_TEXT: '{field} enthält Zeichen, die nicht gespeichert werden können.',
    FIELD_READ_ONLY: '{field} wird vom Server gesetzt und kann nicht gesendet werden.',
    integer: '{field} muss eine ganze Zahl sein.',
    integerBetween: '{field} muss eine ganze Zahl von {minimum} bis {maximum} sein.',
    number: '{field} muss eine Zahl sein.',
    blank: '{field} ist erforderlich.',
    tooLongAtMost: '{field} darf höchstens {maximum} Zeichen lang sein.',
    atLeast: '{field} muss mindestens {minimum} sein.',
    atMost: '{field} darf höchstens {maximum} sein.',
    between: '{field} muss zwischen {minimum} und {maximum} liegen.',
    greaterThan: '{field} muss größer als {minimum} sein.',
    lessThan: '{field} muss kleiner als {maximum} sein.',
    oneOf: '{field} muss einer dieser Werte sein: {allowed}.',
    hinted: '{field} ist ungültig: {hint}'
  }
}

export interface FieldFacts {
  /** The words beside the field ("First name"); the server uses the key. */
  label: string
  /** Its kind (src/domain/kinds/), where known: the words of a type or range failure. */
  kind?: Kind
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  maxLength?: number
  /** The declaration's words for a valid value, said when a value breaks the pattern. */
  hint?: string
  /** The values an enum allows. */
  allowed?: readonly string[]
}

/** Which rule a FIELD_INVALID broke, as the failure's detail says it (ajv's words): the app can then say the rule. */
export type InvalidRule = 'pattern' | 'enum' | undefined

export function invalidRuleOf (detail: string | undefined): InvalidRule {
  if (detail === undefined) return undefined
  if (/must match pattern/.test(detail)) return 'pattern'
  if (/allowed values|must be one of/.test(detail)) return 'enum'
  return undefined
}

type Code = 'FIELD_REQUIRED' | 'FIELD_TYPE' | 'FIELD_TOO_SHORT' | 'FIELD_TOO_LONG' | 'FIELD_OUT_OF_RANGE' | 'FIELD_INVALID' | 'FIELD_INVALID_TEXT' | 'FIELD_READ_ONLY'
const CODES = new Set<string>(['FIELD_REQUIRED', 'FIELD_TYPE', 'FIELD_TOO_SHORT', 'FIELD_TOO_LONG', 'FIELD_OUT_OF_RANGE', 'FIELD_INVALID', 'FIELD_INVALID_TEXT', 'FIELD_READ_ONLY'])

/**
 * The sentence for a field failure: the most exact template the facts allow.
 * `blank`: the failure was the schemas' "not only white space" rule. Undefined for a code that is not a field's.
 */
export function fieldMessage (lang: FieldLanguage, code: string, facts: FieldFacts, blank = false, rule?: InvalidRule): string | undefined {
  if (!CODES.has(code)) return undefined
  const table = FIELD_TEMPLATES[lang]
  const number = new Intl.NumberFormat(lang === 'de' ? 'de-DE' : 'en-US')
  const between = facts.minimum !== undefined && facts.maximum !== undefined
  let template: string = table[code as Code]
  if (blank || code === 'FIELD_TOO_SHORT') template = facts.kind === 'string' || facts.kind === undefined ? table.blank : template
  else if ((code === 'FIELD_TYPE' || code === 'FIELD_OUT_OF_RANGE') && facts.kind === 'integer' && between) template = table.integerBetween
  else if (code === 'FIELD_OUT_OF_RANGE' && (facts.kind === 'integer' || facts.kind === 'number')) template = rangeTemplate(table, facts) ?? (facts.kind === 'integer' ? table.integer : template)
  else if (code === 'FIELD_TYPE' && facts.kind === 'integer') template = table.integer
  else if (code === 'FIELD_TYPE' && facts.kind === 'number') template = table.number
  else if (code === 'FIELD_TOO_LONG' && facts.maxLength !== undefined) template = table.tooLongAtMost
  else if (code === 'FIELD_INVALID' && rule === 'pattern' && facts.hint !== undefined) template = table.hinted
  else if (code === 'FIELD_INVALID' && rule === 'enum' && facts.allowed !== undefined) template = table.oneOf
  const low = facts.minimum ?? facts.exclusiveMinimum
  const high = facts.maximum ?? facts.exclusiveMaximum
  const values: Record<string, string> = {
    field: facts.label,
    minimum: low === undefined ? '' : number.format(low),
    maximum: high === undefined ? (facts.maxLength === undefined ? '' : number.format(facts.maxLength)) : number.format(high),
    hint: facts.hint ?? '',
    allowed: (facts.allowed ?? []).join(', ')
  }
  return template.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? '')
}

/** The words of the bounds a number breaks: both, the one it has, or undefined when none is known. */
function rangeTemplate (table: FieldTemplates, facts: FieldFacts): string | undefined {
  const low = facts.minimum !== undefined ? 'min' : facts.exclusiveMinimum !== undefined ? 'above' : undefined
  const high = facts.maximum !== undefined ? 'max' : facts.exclusiveMaximum !== undefined ? 'below' : undefined
  if (low === 'min' && high === 'max') return table.between
  if (high !== undefined && low === undefined) return high === 'max' ? table.atMost : table.lessThan
  if (low !== undefined && high === undefined) return low === 'min' ? table.atLeast : table.greaterThan
  // An inclusive and an exclusive bound (or none): the general words.
  return undefined
}
