import { request } from '../helpers/server.js'

/** A GraphQL request over POST /graphql, as a client sends it. */
export async function gql (origin: string, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}): ReturnType<typeof request> {
  return await request(`${origin}/graphql`, { method: 'POST', headers, json: { query, variables } })
}

export interface Subscription {
  status: number
  /** The `next` payloads received so far. */
  results: any[]
  /** Waits until `count` results arrived (or fails after `ms`). */
  next: (count: number, ms?: number) => Promise<any[]>
  close: () => void
}

/**
 * A subscription over graphql-sse's distinct connections mode: a POST with
 * Accept: text/event-stream, its `next` events read as they come.
 */
export async function subscribe (origin: string, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Subscription> {
  const abort = new AbortController()
  const res = await fetch(`${origin}/graphql/stream`, {
    method: 'POST',
    signal: abort.signal,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ query, variables })
  })
  const results: any[] = []
  const waiters: Array<() => void> = []
  let buffer = ''
  if (res.body !== null && res.headers.get('content-type')?.startsWith('text/event-stream') === true) {
    const reader = res.body.getReader()
    const decoder = new TextDecoder()
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read()
          if (done) break
          buffer += decoder.decode(value, { stream: true })
          let end: number
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end)
            buffer = buffer.slice(end + 2)
            const lines = block.split('\n')
            if (!lines.includes('event: next')) continue
            const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n')
            results.push(JSON.parse(data))
            for (const wake of waiters.splice(0)) wake()
          }
        }
      } catch { /* aborted */ }
    })()
  }
  return {
    status: res.status,
    results,
    next: async (count, ms = 5000) => {
      const deadline = Date.now() + ms
      while (results.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} subscription results, got ${results.length}: ${JSON.stringify(results)}`)
        await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 50) })
      }
      return results.slice(0, count)
    },
    close: () => { abort.abort() }
  }
}
