import type { Change } from '../../domain/index.js'
import type { ChangeFormat } from '../events/format.js'

export const KINDS = ['created', 'replaced', 'deleted'] as const
export const PING_EVENT = 'webhook.ping'

/** `books.created` matches `books.created`, `books.*`, `*.created` and `*`. */
export function matches (patterns: readonly string[], event: string): boolean {
  const dot = event.indexOf('.')
  const collection = event.slice(0, dot)
  const kind = event.slice(dot + 1)
  return patterns.some((p) => {
    if (p === '*' || p === event) return true
    const [c, k] = p.split('.')
    return (c === '*' || c === collection) && (k === '*' || k === kind)
  })
}

/** The first pattern that names no collection of `collections` or no kind; undefined when all are good. */
export function badPattern (patterns: readonly string[], collections: readonly string[]): string | undefined {
  return patterns.find((p) => {
    if (p === '*') return false
    const parts = p.split('.')
    if (parts.length !== 2) return true
    const [c, k] = parts as [string, string]
    return !(c === '*' || collections.includes(c)) || !(k === '*' || (KINDS as readonly string[]).includes(k))
  })
}

/**
 * The body of a change's webhook: `{"type", "timestamp", "seq", "data"}`,
 * `data` being the change feed's event JSON (`{"id", "record", "at"}`, the
 * record in its newest representation). Undefined for a collection this
 * server does not serve.
 */
export function changeBody (format: ChangeFormat, change: Change): string | undefined {
  const data = format.data(change)
  if (data === undefined) return undefined
  return `{"type":"${change.service}.${change.kind}","timestamp":"${change.at.toISOString()}","seq":${change.seq},"data":${data}}`
}

/** The body of a test ping. */
export function pingBody (webhookId: string, at: Date): string {
  return JSON.stringify({ type: PING_EVENT, timestamp: at.toISOString(), data: { webhook: webhookId } })
}
