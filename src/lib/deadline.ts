import { AsyncLocalStorage } from 'node:async_hooks'

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
  /** When the work last let other work run (see heldSince). */
  turn: number
}

const current = new AsyncLocalStorage<Deadline | undefined>()

/** Runs `work` under a deadline `ms` from now; what it starts inherits the deadline. */
export function withDeadline<T> (ms: number, work: () => T): T {
  const now = Date.now()
  return current.run({ end: now + ms, ms, turn: now }, work)
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
 * How long (ms) the work under the current deadline has gone without
 * letting other work run, by its own account (`tookTurn`); 0 under none.
 * Synchronous stores ask it to yield before a long request starves others.
 */
export function heldSince (): number {
  const deadline = current.getStore()
  return deadline === undefined ? 0 : Date.now() - deadline.turn
}

/** The work under the current deadline just let other work run. */
export function tookTurn (): void {
  const deadline = current.getStore()
  if (deadline !== undefined) deadline.turn = Date.now()
}
