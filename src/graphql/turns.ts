/**
 * Work made of steps, a generator whose every `yield` is a point where the
 * event loop may be given back: building the GraphQL schema at the
 * declaration limits is a hundred milliseconds of CPU in all, and the
 * server must keep answering other requests meanwhile.
 */

/** Runs the steps at once (where nothing else should run in between, e.g. a schema swapped while a change is applied). */
export function drain<T> (steps: Generator<unknown, T>): T {
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
  }
}

/** Runs the steps a turn of the event loop each: what was waiting (I/O, timers) runs between two steps. */
export async function inTurns<T> (steps: Generator<unknown, T>): Promise<T> {
  for (;;) {
    const step = steps.next()
    if (step.done === true) return step.value
    await nextTurn()
  }
}

/** Resolves after the I/O and timers now due were handled (setImmediate: the check phase, after poll). */
export async function nextTurn (): Promise<void> {
  await new Promise<void>((resolve) => { setImmediate(resolve) })
}
