import type { LineError, PlannedRow } from './import-plan.js'
import type { Problem } from './problem.js'

/** The server's most records in one bulk create (`POST` of a JSON array; src/services/records/bodies.ts). */
export const MAX_BULK_RECORDS = 10_000
/** The server's body limit unless started with another `--body-limit` (1 MiB), less room for the brackets. */
export const MAX_BULK_BYTES = 1_048_576 - 1_024
/** Times a chunk is sent again, with the same Idempotency-Key, after the network failed. */
const NETWORK_RETRIES = 3

export interface ChunkLimits {
  records: number
  bytes: number
}

/**
 * Splits the rows to create into bulk creates: each at most `records` rows
 * and `bytes` of JSON (UTF-8), in the file's order. A file within both is
 * one chunk, so its import is one request: truly all or nothing.
 */
export function chunkRows (rows: readonly PlannedRow[], limits: ChunkLimits = { records: MAX_BULK_RECORDS, bytes: MAX_BULK_BYTES }): PlannedRow[][] {
  const encoder = new TextEncoder()
  const chunks: PlannedRow[][] = []
  let chunk: PlannedRow[] = []
  let bytes = 2 // [ and ]
  for (const row of rows) {
    const size = encoder.encode(JSON.stringify(row.body)).length + 1 // and its comma
    if (chunk.length > 0 && (chunk.length >= limits.records || bytes + size > limits.bytes)) {
      chunks.push(chunk)
      chunk = []
      bytes = 2
    }
    chunk.push(row)
    bytes += size
  }
  if (chunk.length > 0) chunks.push(chunk)
  return chunks
}

/**
 * The lines of the file a refused bulk create names: each entry's detail
 * names `body/<index>/<field>` (the index in the chunk), so it is the line
 * of that row; an entry about the request as a whole is `general`.
 */
export function refusedLines (chunk: readonly PlannedRow[], problem: Problem | undefined): { lines: LineError[], general: string[] } {
  const lines = new Map<number, string[]>()
  const general: string[] = []
  for (const entry of problem?.errors ?? []) {
    const match = /\bbody\/(\d+)(?:\/(\S+))?/.exec(entry.detail ?? '')
    const row = match === null ? undefined : chunk[Number(match[1])]
    if (row === undefined) { general.push(entry.message); continue }
    // The server's message names `/index/field`; the person knows the field, not the index in a request.
    const field = match?.[2]
    const message = entry.message.replace(/\/\d+\/(\S+)/, '$1')
    const reason = field === undefined || message.includes(field) ? message : `${field}: ${message}`
    lines.set(row.line, [...(lines.get(row.line) ?? []), reason])
  }
  return { lines: [...lines].map(([line, reasons]) => ({ line, reason: reasons.join(' ') })), general }
}

/** How one chunk went: created (how many records), or refused with the server's problem. */
export type ChunkAnswer = { ok: true, created: number } | { ok: false, problem?: Problem, status: number }

export interface BulkRun {
  /** Sends one chunk as a bulk create under the Idempotency-Key given (the same for each retry). */
  send: (chunk: readonly PlannedRow[], key: string) => Promise<ChunkAnswer>
  /** Stop at the first refused chunk (the default): nothing after it is sent. */
  allOrNothing: boolean
  /** Read between chunks: true stops the import there (a chunk sent is written or refused whole). */
  cancelled: () => boolean
  onProgress: (done: number) => void
  newKey?: () => string
  /** Waits before a retry (tests pass one that does not). */
  pause?: (ms: number) => Promise<void>
}

/** What an import of chunks did, for the report. */
export interface BulkOutcome {
  created: number
  /** The chunks stored, each whole: their first and last lines. */
  stored: Array<{ from: number, to: number }>
  /** Chunks the server refused (nothing of them stored). */
  refusedChunks: Array<{ from: number, to: number, rows: number }>
  /** Chunks sent that never got an answer, even after the retries: stored or not, nobody can say. */
  unanswered: Array<{ from: number, to: number, rows: number }>
  /** Rows never sent: after a refused chunk (all or nothing) or a cancel. */
  unsent: number
  /** The refused rows the server named, with its messages. */
  lines: LineError[]
  general: string[]
  cancelled: boolean
}

/** Sends the chunks one after another (the server writes each in one transaction); see BulkRun. */
export async function runBulk (chunks: readonly PlannedRow[][], run: BulkRun): Promise<BulkOutcome> {
  const newKey = run.newKey ?? idempotencyKey
  const pause = run.pause ?? (async (ms: number) => { await new Promise((resolve) => setTimeout(resolve, ms)) })
  const outcome: BulkOutcome = { created: 0, stored: [], refusedChunks: [], unanswered: [], unsent: 0, lines: [], general: [], cancelled: false }
  let done = 0
  let storedBefore = -2
  for (const [index, chunk] of chunks.entries()) {
    const stop = run.cancelled() || (run.allOrNothing && outcome.refusedChunks.length + outcome.unanswered.length > 0)
    if (stop) {
      outcome.cancelled = run.cancelled()
      outcome.unsent = chunks.slice(index).reduce((n, c) => n + c.length, 0)
      break
    }
    const key = newKey()
    let answer = await run.send(chunk, key)
    // No answer at all: the chunk may or may not have been written, and the same key makes sure it is written once.
    for (let retry = 1; !answer.ok && answer.status === 0 && retry <= NETWORK_RETRIES; retry++) {
      await pause(500 * retry)
      answer = await run.send(chunk, key)
    }
    const span = { from: chunk[0]?.line ?? 0, to: chunk[chunk.length - 1]?.line ?? 0 }
    if (answer.ok) {
      outcome.created += answer.created
      // Chunks stored one after another are one span of lines.
      const last = outcome.stored[outcome.stored.length - 1]
      if (last !== undefined && storedBefore === index - 1) last.to = span.to
      else outcome.stored.push(span)
      storedBefore = index
    } else if (answer.status === 0) {
      // Still no answer after the retries: whether the chunk was written is not known (the key would tell a later retry).
      outcome.unanswered.push({ ...span, rows: chunk.length })
    } else {
      outcome.refusedChunks.push({ ...span, rows: chunk.length })
      const named = refusedLines(chunk, answer.problem)
      outcome.lines.push(...named.lines)
      outcome.general.push(...(named.general.length === 0 && named.lines.length === 0 ? [`HTTP ${answer.status}`] : named.general))
    }
    done += chunk.length
    run.onProgress(done)
  }
  return outcome
}

/** A fresh Idempotency-Key: a UUID where the page may make one (a secure context), random hex otherwise. */
export function idempotencyKey (): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID()
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('')
}
