import { UnitOfWorkStalledError } from '../domain/index.js'

/** The steps of a unit of work on a synchronous store (memory, SQLite); all but `work` synchronous. */
export interface UnitSteps<R> {
  begin: () => void
  /** The caller's work; its operations check `open` first. */
  work: (open: () => void) => Promise<R>
  /** Makes the work's writes (and a keyed answer built from `result`) permanent; throws to fail the unit. */
  commit: (result: R) => void
  rollback: () => void
}

/**
 * Runs a unit of work of a synchronous store. Call it at the start of a
 * macrotask (a setImmediate callback): the store's operations finish
 * synchronously, so the work settles within this turn's microtasks, before
 * any other request's code runs, and nobody sees it half done. Work that is
 * still pending when the next turn's check phase comes waited for something
 * else: it is rolled back there, and its later operations throw.
 */
export async function runUnit<R> (steps: UnitSteps<R>): Promise<R> {
  let closed = false
  const open = (): void => { if (closed) throw new UnitOfWorkStalledError() }
  return await new Promise<R>((resolve, reject) => {
    steps.begin()
    const guard = setImmediate(() => {
      if (closed) return
      closed = true
      steps.rollback()
      reject(new UnitOfWorkStalledError())
    })
    const settle = (ok: boolean, value: unknown): void => {
      if (closed) return
      closed = true
      clearImmediate(guard)
      if (ok) {
        try {
          steps.commit(value as R)
          resolve(value as R)
          return
        } catch (err) {
          value = err
        }
      }
      steps.rollback()
      reject(value)
    }
    let work: Promise<R>
    try {
      work = steps.work(open)
    } catch (err) {
      settle(false, err)
      return
    }
    work.then((result) => { settle(true, result) }, (err: unknown) => { settle(false, err) })
  })
}
