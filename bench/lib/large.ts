/**
 * The large-list row: one client asks for the whole student collection while
 * a few others keep asking for one student. Reports the list's time to first
 * body byte and total time, the server's RSS growth (polled from /proc), and
 * the latency of the small requests made while the list was in flight.
 */
import { Agent, request } from 'node:http'
import { percentile } from './stats.js'
import { rssBytes, type RunningServer } from './procs.js'

export interface LargeListFigures {
  status: number
  bytes: number
  ttfbMs: number
  totalMs: number
  rssBeforeMb: number
  rssPeakMb: number
  rssGrowthMb: number
  /** Small requests answered while the list was in flight. */
  smallRequests: number
  smallP99Ms: number
  smallMaxMs: number
}

const MB = 1024 * 1024

function get (agent: Agent, origin: string, path: string, onFirstByte?: () => void): Promise<{ status: number, bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { agent }, (res) => {
      let bytes = 0
      let first = true
      res.on('data', (chunk: Buffer) => {
        if (first) { first = false; onFirstByte?.() }
        bytes += chunk.length
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }))
      res.on('error', reject)
    })
    req.setTimeout(600_000, () => req.destroy(new Error('list timed out')))
    req.on('error', reject)
    req.end()
  })
}

export async function largeList (server: RunningServer, listPath: string, smallPath: string, smallClients: number): Promise<LargeListFigures> {
  const listAgent = new Agent({ keepAlive: true, maxSockets: 1 })
  const smallAgent = new Agent({ keepAlive: true, maxSockets: smallClients })
  try {
    // Warm the small path and open its connections before the list starts.
    await Promise.all(Array.from({ length: smallClients }, async () => await get(smallAgent, server.origin, smallPath)))
    const rssBefore = rssBytes(server.pid)
    let rssPeak = rssBefore
    const poll = setInterval(() => { const r = rssBytes(server.pid); if (r > rssPeak) rssPeak = r }, 10)

    const start = performance.now()
    let ttfb = Number.NaN
    let listDone = false
    const list = get(listAgent, server.origin, listPath, () => { ttfb = performance.now() - start }).finally(() => { listDone = true })
    const latencies: number[] = []
    const loops = Array.from({ length: smallClients }, async () => {
      while (!listDone) {
        const t = performance.now()
        await get(smallAgent, server.origin, smallPath)
        if (!listDone || latencies.length === 0) latencies.push(performance.now() - t)
      }
    })
    const answer = await list
    const total = performance.now() - start
    await Promise.all(loops)
    clearInterval(poll)
    const last = rssBytes(server.pid)
    if (last > rssPeak) rssPeak = last
    return {
      status: answer.status,
      bytes: answer.bytes,
      ttfbMs: ttfb,
      totalMs: total,
      rssBeforeMb: rssBefore / MB,
      rssPeakMb: rssPeak / MB,
      rssGrowthMb: (rssPeak - rssBefore) / MB,
      smallRequests: latencies.length,
      smallP99Ms: percentile(latencies, 99),
      smallMaxMs: Math.max(...latencies)
    }
  } finally {
    listAgent.destroy()
    smallAgent.destroy()
  }
}
