import { afterEach, describe, expect, it } from 'vitest'
import type { Change, ChangeListener, ChangeLog, RecordId } from '../../../src/domain/index.js'
import { resolveConfig } from '../../../src/options.js'
import { ChangeFormat } from '../../../src/services/events/format.js'
import { Dispatcher } from '../../../src/services/webhooks/dispatcher.js'
import { MemoryWebhookStore } from '../../../src/stores/memory/webhooks.js'
import { eventually } from './receiver.js'

/** A change log the test writes by hand: its listener is called synchronously, so what a change wakes is seen at once. */
class HandLog implements ChangeLog {
  readonly changes: Change[] = []
  listener: ChangeListener | undefined
  write (service: string): void {
    const change: Change = { seq: this.changes.length + 1, service, kind: 'created', id: this.changes.length + 1, record: null, at: new Date() }
    this.changes.push(change)
    this.listener?.(change)
  }

  async since (after: number, limit: number): Promise<Change[]> { return this.changes.filter((c) => c.seq > after).slice(0, limit) }
  async ofRecord (service: string, id: RecordId, limit: number): Promise<Change[]> {
    return this.changes.filter((c) => c.service === service && String(c.id) === String(id)).reverse().slice(0, limit)
  }

  async window (): Promise<{ oldest: number, latest: number }> { return { oldest: 1, latest: this.changes.length } }
  async subscribe (listener: ChangeListener): Promise<{ position: number, unsubscribe: () => void }> {
    this.listener = listener
    return { position: this.changes.length, unsubscribe: () => { this.listener = undefined } }
  }
}

/**
 * Issue 35, item 7: a webhook on one collection costs nothing to the writes
 * of the others. A change no enabled webhook asks for does not wake the
 * dispatcher (a round reading the log, listing the webhooks, claiming) once
 * per write; one round soon after passes all such changes.
 */
describe('the dispatcher wakes at once only for the changes its webhooks ask for', () => {
  let dispatcher: Dispatcher | undefined
  afterEach(async () => { await dispatcher?.stop() })

  it('a change of another collection waits for the catch-up round; one asked for, or any after this instance changed a webhook, wakes it', async () => {
    const log = new HandLog()
    const store = new MemoryWebhookStore()
    const now = new Date()
    await store.create({ id: 'wh_0000000000000001', url: 'http://127.0.0.1:9/hook', events: ['addresses.*'], description: '', filter: null, enabled: true, disabledReason: null, secret: 'whsec_x', previousSecret: null, previousSecretUntil: null, afterSeq: 1_000, createdAt: now, updatedAt: now })
    // No poll to speak of: whatever runs here, the changes woke.
    const config = { ...resolveConfig({}, {}).webhooks, enabled: true, pollMs: 600_000 }
    dispatcher = new Dispatcher({ store, changes: log, format: ChangeFormat.of([]), models: new Map(), config, log: { warn: () => {}, error: () => {} } })
    let wakes = 0
    const wake = dispatcher.wake.bind(dispatcher)
    dispatcher.wake = () => { wakes++; wake() }
    await dispatcher.start()
    await eventually(async () => await store.position() === 0)

    // Before any round has listed the webhooks, every change wakes.
    wakes = 0
    log.write('students')
    expect(wakes).toBe(1)
    await eventually(async () => await store.position() === 1)

    wakes = 0
    for (let i = 0; i < 20; i++) log.write('students')
    expect(wakes).toBe(0)
    // One round soon after moves the position past them all.
    await eventually(async () => await store.position() === 21)
    expect(wakes).toBe(1)

    log.write('addresses')
    expect(wakes).toBe(2)
    await eventually(async () => await store.position() === 22)

    dispatcher.hooksChanged()
    wakes = 0
    log.write('students')
    expect(wakes).toBe(1)
  })
})

describe('a first start on a database takes its position before it returns', () => {
  it('so a change written at once after the start is delivered, however late the first round runs', async () => {
    const log = new HandLog()
    for (let i = 0; i < 5; i++) log.write('students')
    const store = new MemoryWebhookStore()
    const config = { ...resolveConfig({}, {}).webhooks, enabled: true, pollMs: 600_000 }
    const dispatcher = new Dispatcher({ store, changes: log, format: ChangeFormat.of([]), models: new Map(), config, log: { warn: () => {}, error: () => {} } })
    // No round runs at all: the position is the start's own doing.
    dispatcher.wake = () => {}
    try {
      await dispatcher.start()
      expect(await store.position()).toBe(5)
    } finally { await dispatcher.stop() }
  })
})

describe('a round takes its changes from the feed', () => {
  let dispatcher: Dispatcher | undefined
  afterEach(async () => { await dispatcher?.stop() })

  it('moves the position past the changes the feed told of without reading the log; reads the log while the position is behind the feed', async () => {
    const log = new HandLog()
    // Written before the start, so before the subscription's position: only the log has them.
    for (let i = 0; i < 3; i++) log.write('students')
    const store = new MemoryWebhookStore()
    const now = new Date()
    await store.create({ id: 'wh_0000000000000001', url: 'http://127.0.0.1:9/hook', events: ['students.*'], description: '', filter: null, enabled: true, disabledReason: null, secret: 'whsec_x', previousSecret: null, previousSecretUntil: null, afterSeq: 0, createdAt: now, updatedAt: now })
    await store.enqueue(null, 0, [])
    let reads = 0
    const since = log.since.bind(log)
    const window = log.window.bind(log)
    log.since = async (after, limit) => { reads++; return await since(after, limit) }
    log.window = async () => { reads++; return await window() }
    const config = { ...resolveConfig({}, {}).webhooks, enabled: true, pollMs: 600_000 }
    dispatcher = new Dispatcher({ store, changes: log, format: ChangeFormat.of([]), models: new Map(), config, log: { warn: () => {}, error: () => {} } })
    await dispatcher.start()
    await eventually(async () => await store.position() === 3)
    expect(reads).toBeGreaterThan(0)

    reads = 0
    for (let i = 0; i < 5; i++) log.write('students')
    await eventually(async () => await store.position() === 8)
    for (let i = 0; i < 600; i++) log.write('students')
    await eventually(async () => await store.position() === 608)
    expect(reads).toBe(0)
  })
})

describe('the dispatcher keeps only the changes some webhook may ask for', () => {
  let dispatcher: Dispatcher | undefined
  afterEach(async () => { await dispatcher?.stop() })

  const hook = (id: string, events: string[], afterSeq: number): Parameters<MemoryWebhookStore['create']>[0] => {
    const now = new Date()
    return { id, url: 'http://127.0.0.1:9/hook', events, description: '', filter: null, enabled: true, disabledReason: null, secret: 'whsec_x', previousSecret: null, previousSecretUntil: null, afterSeq, createdAt: now, updatedAt: now }
  }

  it('passes over the changes of another collection without keeping them, and still moves the position past them', async () => {
    const log = new HandLog()
    const store = new MemoryWebhookStore()
    await store.create(hook('wh_0000000000000001', ['addresses.*'], 1_000))
    const config = { ...resolveConfig({}, {}).webhooks, enabled: true, pollMs: 600_000 }
    dispatcher = new Dispatcher({ store, changes: log, format: ChangeFormat.of([]), models: new Map(), config, log: { warn: () => {}, error: () => {} } })
    await dispatcher.start()
    log.write('addresses')
    await eventually(async () => await store.position() === 1)
    // The round has listed the webhooks: their patterns decide what is kept (the addresses change stays until the next round).
    const held = dispatcher.fedHeld
    for (let i = 0; i < 20; i++) log.write('students')
    expect(dispatcher.fedHeld).toBe(held)
    await eventually(async () => await store.position() === 21)
    log.write('addresses')
    expect(dispatcher.fedHeld).toBe(1)
    await eventually(async () => await store.position() === 22)
  })

  it('reads the log for the changes passed over when a round finds a webhook asking for them (another instance added it)', async () => {
    const log = new HandLog()
    const store = new MemoryWebhookStore()
    await store.create(hook('wh_0000000000000001', ['addresses.*'], 0))
    let reads = 0
    const since = log.since.bind(log)
    log.since = async (after, limit) => { reads++; return await since(after, limit) }
    const config = { ...resolveConfig({}, {}).webhooks, enabled: true, pollMs: 600_000 }
    dispatcher = new Dispatcher({ store, changes: log, format: ChangeFormat.of([]), models: new Map(), config, log: { warn: () => {}, error: () => {} } })
    await dispatcher.start()
    log.write('addresses')
    await eventually(async () => await store.position() === 1)
    for (let i = 0; i < 3; i++) log.write('students')
    await eventually(async () => await store.position() === 4)
    // Patterns unchanged: the changes passed over were nobody's, and the feed sufficed.
    expect(reads).toBe(0)

    // Another instance sharing the store registers a webhook for students (this one is not told).
    await store.create(hook('wh_0000000000000002', ['students.created'], 4))
    const held = dispatcher.fedHeld
    for (let i = 0; i < 3; i++) log.write('students')
    expect(dispatcher.fedHeld).toBe(held)
    await eventually(async () => await store.position() === 7)
    // The round listed a webhook asking for what the stale patterns passed over: it read the log for them.
    expect(reads).toBeGreaterThan(0)

    // Once past them, the feed serves again (now keeping the students' changes).
    reads = 0
    log.write('students')
    expect(dispatcher.fedHeld).toBeGreaterThan(0)
    await eventually(async () => await store.position() === 8)
    expect(reads).toBe(0)
  })
})

describe('changes arriving at a steady rate share rounds', () => {
  let dispatcher: Dispatcher | undefined
  afterEach(async () => { await dispatcher?.stop() })

  it('a change after a quiet spell is queued at once; those written during a round wait for the next, at least 10 ms after its start', async () => {
    const log = new HandLog()
    const store = new MemoryWebhookStore()
    const now = new Date()
    // The change format serves no collection, so no delivery is made: what counts is each round's move of the position.
    await store.create({ id: 'wh_0000000000000001', url: 'http://127.0.0.1:9/hook', events: ['students.*'], description: '', filter: null, enabled: true, disabledReason: null, secret: 'whsec_x', previousSecret: null, previousSecretUntil: null, afterSeq: 0, createdAt: now, updatedAt: now })
    const queueings: number[] = []
    const enqueue = store.enqueue.bind(store)
    store.enqueue = async (from, to, deliveries) => { if (from !== null && to > from) queueings.push(performance.now()); return await enqueue(from, to, deliveries) }
    const config = { ...resolveConfig({}, {}).webhooks, enabled: true, pollMs: 600_000 }
    dispatcher = new Dispatcher({ store, changes: log, format: ChangeFormat.of([]), models: new Map(), config, log: { warn: () => {}, error: () => {} } })
    await dispatcher.start()
    await eventually(async () => await store.position() === 0)
    await new Promise((resolve) => setTimeout(resolve, 50))

    // Queued within the turn it was written in (the memory store answers in microtasks), before any timer.
    log.write('students')
    await new Promise((resolve) => setImmediate(resolve))
    expect(queueings.length).toBe(1)
    await eventually(async () => await store.position() === 1)

    // 60 changes, a millisecond or more apart: without the gap, about one round (and one queueing) each.
    queueings.length = 0
    const started = performance.now()
    for (let i = 0; i < 60; i++) {
      log.write('students')
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    const written = log.changes.length
    await eventually(async () => await store.position() === written)
    expect(queueings.length).toBeLessThanOrEqual(Math.ceil((performance.now() - started) / 10) + 1)
    for (let i = 1; i < queueings.length; i++) expect(queueings[i]! - queueings[i - 1]!).toBeGreaterThanOrEqual(9)
  })
})
