import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/** How often the checkpointer copies the WAL's committed pages into the database file (ms). */
export const CHECKPOINT_INTERVAL_MS = 250

/**
 * The checkpointer's code: plain CommonJS run with `eval`, so it needs no
 * build step or TypeScript loader (tests run the sources). Its own connection
 * runs PRAGMA wal_checkpoint(PASSIVE) on a timer: PASSIVE takes no write
 * lock and waits for no one, so writers and readers go on meanwhile, in this
 * process and any other. synchronous = FULL: the copied pages are synced
 * before the WAL may be reused.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.path, { fileMustExist: true })
db.pragma('synchronous = FULL')
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
const timer = setInterval(() => {
  try { checkpoint.get() } catch { /* busy or failing now: the next tick tries again */ }
}, workerData.intervalMs)
parentPort.on('message', () => {
  clearInterval(timer)
  try { db.close() } catch {}
  parentPort.close()
})
`

/**
 * Checkpoints off the request path (issue 20). With SQLite's automatic
 * checkpoint, the commit that takes the WAL past 1000 pages copies them into
 * the database file and syncs it, on the event loop, inside that request. So
 * the server's connection turns automatic checkpoints off and this worker
 * thread checkpoints from a second connection every CHECKPOINT_INTERVAL_MS.
 * The WAL stays bounded: once a checkpoint has copied all of it, the next
 * write starts it again from the top. Should the worker fail to start or
 * die, `fallBack` is called (the caller turns automatic checkpoints back on).
 */
export class Checkpointer {
  readonly #worker: Worker
  #closing = false
  readonly #exited: Promise<void>

  constructor (path: string, fallBack: () => void) {
    this.#worker = new Worker(WORKER, {
      eval: true,
      workerData: { path, driver: createRequire(import.meta.url).resolve('better-sqlite3'), intervalMs: CHECKPOINT_INTERVAL_MS }
    })
    // It must not keep a process alive that has nothing else to do.
    this.#worker.unref()
    this.#worker.on('error', () => { /* reported by 'exit' */ })
    this.#exited = new Promise((resolve) => {
      this.#worker.once('exit', () => {
        if (!this.#closing) fallBack()
        resolve()
      })
    })
  }

  /** Stops the worker and closes its connection; resolves once it is gone. */
  async close (): Promise<void> {
    this.#closing = true
    this.#worker.postMessage('close')
    const timer = setTimeout(() => { void this.#worker.terminate() }, 5000)
    await this.#exited
    clearTimeout(timer)
  }
}
