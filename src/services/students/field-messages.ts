import { isStorableTextFailure, STORABLE_TEXT_RULE } from '../../http/text.js'

interface AjvIssue {
  keyword: string
  params: Record<string, unknown>
}

/**
 * The v1 envelope's words for a field failure whose cause is more specific
 * than the field's general rule (issue 10, defect 6): a name over the limit
 * is "too long", with the limit, not "must be a non-empty string". Undefined
 * keeps the general rule ("must be a non-empty string").
 */
export function v1FieldRule (issue: AjvIssue): string | undefined {
  if (issue.keyword === 'maxLength') return `is too long: at most ${String(issue.params.limit)} characters`
  if (isStorableTextFailure(issue.keyword, issue.params)) return STORABLE_TEXT_RULE
  return undefined
}
