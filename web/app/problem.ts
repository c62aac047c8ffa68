/**
 * The services' errors, as the page shows them. Both services this app talks
 * to (students v2, addresses) answer errors as RFC 9457 problem details whose
 * `errors[]` entries carry a stable code, a translated `message` and a
 * developer `detail` naming the field (`body.firstName is required`).
 */
export interface ProblemEntry {
  error?: string
  message: string
  detail?: string
}

export interface Problem {
  status: number
  title?: string
  errors: ProblemEntry[]
  traceId?: string
  /** No answer at all (network down, server stopped). */
  network?: boolean
  /** 403 with insufficient_scope: the scope the token lacks. */
  scope?: string
}

function text (value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** Reads a problem (or anything else a failed request answered) into the page's shape. */
export function toProblem (status: number, body: unknown, headers: Headers): Problem {
  const problem: Problem = { status, errors: [] }
  if (typeof body === 'object' && body !== null) {
    const b = body as Record<string, unknown>
    problem.title = text(b.title)
    problem.traceId = text(b.traceId)
    if (Array.isArray(b.errors)) {
      for (const entry of b.errors as unknown[]) {
        if (typeof entry !== 'object' || entry === null) continue
        const e = entry as Record<string, unknown>
        const message = text(e.message) ?? text(e.detail)
        if (message !== undefined) problem.errors.push({ error: text(e.error), message, detail: text(e.detail) })
      }
    }
  }
  problem.traceId ??= headers.get('x-request-id') ?? undefined
  const scope = /insufficient_scope.*scope="([^"]*)"/i.exec(headers.get('www-authenticate') ?? '')
  if (scope !== null) problem.scope = scope[1]
  return problem
}

export interface SplitProblem {
  /** Messages for the fields of the form, by field key. */
  fields: Record<string, string[]>
  /** Messages that concern the action as a whole. */
  general: string[]
}

/** The field an entry is about: its detail names `body.<field>` (ajv paths, service-made checks alike). */
export function fieldOf (entry: ProblemEntry): string | undefined {
  return /\bbody\.([A-Za-z_][A-Za-z0-9_]*)/.exec(entry.detail ?? '')?.[1]
}

/** The words for a field's failure, by the label beside it (fields.ts), or undefined to keep the service's. */
export type FieldWording = (code: string, field: string, blank: boolean, detail?: string) => string | undefined

/**
 * Sorts a problem's messages to the fields they concern; the rest stays with the action. A field's
 * message is worded by `word` (the label and limits the page knows), else the service's message.
 */
export function splitProblem (problem: Problem, fields: readonly string[], word?: FieldWording): SplitProblem {
  const split: SplitProblem = { fields: {}, general: [] }
  for (const entry of problem.errors) {
    const field = fieldOf(entry)
    const blank = /white space/.test(entry.detail ?? '')
    const message = field === undefined || entry.error === undefined ? undefined : word?.(entry.error, field, blank, entry.detail)
    if (field !== undefined && fields.includes(field)) (split.fields[field] ??= []).push(message ?? entry.message)
    else split.general.push(entry.message)
  }
  return split
}
