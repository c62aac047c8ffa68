import { describe, expect, it, vi } from 'vitest'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { DeadlineSweep } from '../../../src/http/transport/deadline-sweep.js'
import { freshRequestId } from '../../../src/http/transport/request-id.js'
import { lazyRequestLogger } from '../../../src/http/transport/request-logger.js'
import { sweepPeriod } from '../../../src/http/transport/timeouts.js'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe('fresh request ids (issue 12: a counter under a random per-process UUID)', () => {
  it('are version-4 UUIDs, all different, sharing the process prefix', () => {
    const ids = Array.from({ length: 1000 }, freshRequestId)
    for (const id of ids) expect(id).toMatch(UUID_V4)
    expect(new Set(ids).size).toBe(ids.length)
    expect(new Set(ids.map((id) => id.slice(0, 24))).size).toBe(1)
  })
})

/** A parent logger that records the children it makes and the lines they log. */
function recordingParent (): { parent: FastifyBaseLogger, children: Array<{ bindings: object, options: object | undefined }>, lines: unknown[][] } {
  const children: Array<{ bindings: object, options: object | undefined }> = []
  const lines: unknown[][] = []
  const child = (bindings: object, options?: object): FastifyBaseLogger => {
    children.push({ bindings, options })
    const log = (level: string) => (...args: unknown[]) => { lines.push([level, bindings, ...args]) }
    return { level: 'info', fatal: log('fatal'), error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug'), trace: log('trace'), silent: () => {}, child } as unknown as FastifyBaseLogger
  }
  const parent = { level: 'info', info: () => {}, error: () => {}, warn: () => {}, fatal: () => {}, debug: () => {}, trace: () => {}, silent: () => {}, child } as unknown as FastifyBaseLogger
  return { parent, children, lines }
}

describe('the lazy request logger (issue 12)', () => {
  const make = (parent: FastifyBaseLogger, bindings: object): FastifyBaseLogger =>
    lazyRequestLogger.call({} as FastifyInstance, parent, bindings as never, {}, {} as never)

  it('makes no child until something logs, then one child with the same bindings for every line', () => {
    const { parent, children, lines } = recordingParent()
    const log = make(parent, { reqId: 'r-1' })
    expect(children).toHaveLength(0)
    expect(log.level).toBe('info')
    log.info({ a: 1 }, 'first')
    log.error('second')
    expect(children).toEqual([{ bindings: { reqId: 'r-1' }, options: {} }])
    expect(lines).toEqual([['info', { reqId: 'r-1' }, { a: 1 }, 'first'], ['error', { reqId: 'r-1' }, 'second']])
  })

  it('passes a child of its own through the real child', () => {
    const { parent, children } = recordingParent()
    make(parent, { reqId: 'r-2' }).child({ part: 'x' }).warn('w')
    expect(children.map((c) => c.bindings)).toEqual([{ reqId: 'r-2' }, { part: 'x' }])
  })
})

describe('the deadline sweep (issue 12: one timer for every request limit)', () => {
  it('never acts before a deadline and at most two periods after; finished items are dropped', () => {
    vi.useFakeTimers({ now: 0 })
    try {
      const seen: Array<{ item: string, at: number, elapsed: number }> = []
      const sweep = new DeadlineSweep<string>(10, (item, elapsed) => {
        if (elapsed < 100) return false
        seen.push({ item, at: Date.now(), elapsed })
        return true
      })
      sweep.watch('a')
      vi.advanceTimersByTime(7)
      sweep.watch('b') // started at 7, counted from the last sweep (0)
      const c = sweep.watch('c')
      DeadlineSweep.finish(c)
      vi.advanceTimersByTime(100)
      expect(seen).toEqual([])
      vi.advanceTimersByTime(30)
      expect(seen.map((s) => s.item)).toEqual(['a', 'b'])
      const startedAt: Record<string, number> = { a: 0, b: 7 }
      // Acted on no earlier than 100 ms after it really started, and within two periods (20 ms) of that.
      for (const s of seen) expect(s.at - startedAt[s.item]!).toSatisfy((late: number) => late >= 100 && late <= 120)
      expect(sweep.size).toBe(0)
      expect(vi.getTimerCount()).toBe(0)
      sweep.watch('d')
      expect(vi.getTimerCount()).toBe(1)
      sweep.stop()
    } finally {
      vi.useRealTimers()
    }
  })

  it('checks every 1/20 of the shortest limit, between 10 ms and 1 s', () => {
    const limits = { headersTimeoutMs: 10_000, bodyTimeoutMs: 30_000, handlerTimeoutMs: 60_000, readBudgetMs: 30_000, keepAliveTimeoutMs: 5000, maxConnections: 0 }
    expect(sweepPeriod(limits)).toBe(1000)
    expect(sweepPeriod({ ...limits, bodyTimeoutMs: 0, handlerTimeoutMs: 700 })).toBe(35)
    expect(sweepPeriod({ ...limits, bodyTimeoutMs: 50 })).toBe(10)
  })
})
