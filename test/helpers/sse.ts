import { createParser, type EventSourceMessage } from 'eventsource-parser'
import http from 'node:http'
import { isSafeNumber, parse } from 'lossless-json'

/**
 * A Server-Sent Events client for tests: opens a stream with node:http, parses it
 * as a browser would (eventsource-parser) and lets a test wait for events.
 */
export interface FeedConnection {
  status: number
  headers: Headers
  /** Every event so far, in order (`event` undefined for unnamed ones). */
  events: EventSourceMessage[]
  comments: string[]
  retry: number | undefined
  /** Resolves once `count` events have arrived (all of them, in order). */
  waitFor: (count: number, timeoutMs?: number) => Promise<EventSourceMessage[]>
  /** Resolves with the first event (from the start) named `event`. */
  waitForEvent: (event: string, timeoutMs?: number) => Promise<EventSourceMessage>
  /** Resolves when the server ends the stream. */
  ended: Promise<void>
  close: () => void
}

export async function connectFeed (url: string, headers: Record<string, string> = {}): Promise<FeedConnection> {
  // node:http on a connection of its own (fetch's pool would open a spare connection that outlives the test).
  const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false })
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => { req.once('response', resolve).once('error', reject) })
  const events: EventSourceMessage[] = []
  const comments: string[] = []
  const waiters = new Set<() => void>()
  const notify = (): void => { for (const waiter of [...waiters]) waiter() }
  const connection: FeedConnection = {
    status: res.statusCode ?? 0,
    headers: new Headers(Object.entries(res.headers).flatMap(([name, value]) => value === undefined ? [] : [[name, String(value)] as [string, string]])),
    events,
    comments,
    retry: undefined,
    waitFor: async (count, timeoutMs = 10_000) => { await until(() => events.length >= count, `${count} events (have ${events.length}: ${names()})`, timeoutMs); return events.slice(0, count) },
    waitForEvent: async (event, timeoutMs = 10_000) => {
      await until(() => events.some((e) => e.event === event), `event "${event}" (have ${names()})`, timeoutMs)
      return events.find((e) => e.event === event) as EventSourceMessage
    },
    ended: Promise.resolve(),
    close: () => { req.destroy() }
  }
  const names = (): string => events.map((e) => `${e.id ?? ''}:${e.event ?? ''}`).join(' ')
  async function until (condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
    if (condition()) return
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => { waiters.delete(check); reject(new Error(`timed out waiting for ${what}`)) }, timeoutMs)
      const check = (): void => {
        if (!condition()) return
        clearTimeout(timer)
        waiters.delete(check)
        resolve()
      }
      waiters.add(check)
    })
  }
  const parser = createParser({
    onEvent: (event) => { events.push(event); notify() },
    onComment: (comment) => { comments.push(comment); notify() },
    onRetry: (ms) => { connection.retry = ms }
  })
  res.setEncoding('utf8')
  res.on('data', (chunk: string) => { parser.feed(chunk) })
  connection.ended = new Promise<void>((resolve) => { res.once('close', resolve) })
  return connection
}

/** The JSON of an event's data, with integers beyond 2^53 read as bigint (as the address ids need). */
export function exactData (event: EventSourceMessage): any {
  return parse(event.data, null, (value) => isSafeNumber(value) ? Number(value) : BigInt(value))
}
