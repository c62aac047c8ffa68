import { AsyncLocalStorage } from 'node:async_hooks'
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'

/**
 * A deadline carried by the asynchronous context: whatever a piece of work
 * starts (promises, timers, callbacks) sees the deadline it was started
 * under, without every function in between passing it along. The HTTP
 * layer starts one per request; the stores ask it before each read.
 */
interface Deadline {
  /** When it passes (Date.now() scale). */
  readonly end: number
  /** How long it was when it started (ms), for messages. */
  readonly ms: number
  /** When the work last let other work run, and how many times it did (see turnDue). */
  turn: number
  turns: number
}

const current = new AsyncLocalStorage<Deadline | undefined>()

/**
 * How many requests hold a deadline now (holdDeadline). Once an
 * AsyncLocalStorage is in use, Node 20 runs its promise hooks on every
 * promise of every request, whether it reads a store or not; so while no
 * request holds one, the context is switched off again, and a server whose
 * requests read no more than one record by id pays nothing for it.
 */
let held = 0

/** Runs `work` under a deadline `ms` from now; what it starts inherits the deadline. */
export function withDeadline<T> (ms: number, work: () => T): T {
  const now = Date.now()
  return current.run({ end: now + ms, ms, turn: now, turns: 0 }, work)
}

/**
 * Runs `work` under a deadline `ms` from now, held until the returned
 * release is called (a request's: when its answer has gone). Each release
 * counts once; the last one switches the context off until the next hold.
 */
export function holdDeadline (ms: number, work: () => void): () => void {
  held++
  let released = false
  withDeadline(ms, work)
  return () => {
    if (released) return
    released = true
    if (--held === 0) current.disable()
  }
}

/** How many deadlines are held now (tests check that every request gives its hold back). */
export function deadlinesHeld (): number {
  return held
}

/** Runs `work` under no deadline at all (a long-lived stream started by a request). */
export function withoutDeadline<T> (work: () => T): T {
  return current.run(undefined, work)
}

/**
 * Runs `work` under a deadline as long as the current one, starting now
 * (one batch of a stream, each bounded alike); under no deadline, under none.
 */
export function withFreshDeadline<T> (work: () => T): T {
  const deadline = current.getStore()
  return deadline === undefined ? work() : withDeadline(deadline.ms, work)
}

/** The length (ms) of the current deadline once it has passed, else undefined (none, or time left). */
export function passedDeadline (): number | undefined {
  const deadline = current.getStore()
  return deadline !== undefined && Date.now() >= deadline.end ? deadline.ms : undefined
}

/**
 * Undefined while the work under the current deadline has let other work
 * run within the last `sliceMs`; else a promise of a turn of the event loop
 * (for synchronous work that would otherwise run back to back). Work started
 * together that waits together takes one turn: the first to come back marks
 * it, and the others run on until the slice is used again.
 */
export function turnDue (sliceMs: number): Promise<void> | undefined {
  const deadline = current.getStore()
  if (deadline === undefined || Date.now() - deadline.turn < sliceMs) return undefined
  return waitTurn(deadline, sliceMs)
}

async function waitTurn (deadline: Deadline, sliceMs: number): Promise<void> {
  for (;;) {
    const asked = deadline.turns
    await yieldToEventLoop()
    if (deadline.turns === asked) {
      deadline.turns++
      deadline.turn = Date.now()
    }
    if (Date.now() - deadline.turn < sliceMs) return
  }
}

/** The time left (ms) under the current deadline and its length, or undefined under none. */
export function deadlineLeft (): { left: number, ms: number } | undefined {
  const deadline = current.getStore()
  return deadline === undefined ? undefined : { left: deadline.end - Date.now(), ms: deadline.ms }
}
