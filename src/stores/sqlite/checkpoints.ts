import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { GroupCommit } from './group-commit.js'

/** How often the checkpointer copies the WAL's committed pages into the database file (ms). */
export const CHECKPOINT_INTERVAL_MS = 250
/** From this many WAL pages on, writes pause for the moment the last checkpoint needs to catch up (SQLite's own autocheckpoint size). */
export const RESTART_PAGES = 1000
/** The longest writes stay paused for a checkpoint; past it they go on and the next tick tries again (ms). */
const PAUSE_LIMIT_MS = 1000

/**
 * The checkpointer's code: plain CommonJS run with `eval`, so it needs no
 * build step or TypeScript loader (tests run the sources). Its own connection
 * runs PRAGMA wal_checkpoint(PASSIVE) when asked and answers how many pages
 * the WAL holds and how many are now in the database file. PASSIVE takes no
 * write lock and waits for no one, so readers and writers, in this process
 * and any other, go on meanwhile. synchronous = FULL: the copied pages are
 * synced before the WAL may be reused.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.path, { fileMustExist: true })
db.pragma('synchronous = FULL')
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
parentPort.on('message', (message) => {
  if (message === 'close') {
    try { db.close() } catch {}
    parentPort.close()
    return
  }
  try {
    const { log, checkpointed } = checkpoint.get()
    parentPort.postMessage({ log, checkpointed })
  } catch {
    parentPort.postMessage({ log: 0, checkpointed: 0, failed: true })
  }
})
`

interface Checkpointed { log: number, checkpointed: number, failed?: boolean }

/**
 * Checkpoints off the request path (issue 20). With SQLite's automatic
 * checkpoint, the commit that takes the WAL past 1000 pages copies them into
 * the database file and syncs it, on the event loop, inside that request. So
 * the server's connection turns automatic checkpoints off and a worker
 * thread checkpoints from a second connection every CHECKPOINT_INTERVAL_MS,
 * while writes go on.
 *
 * A checkpoint running alongside writes never quite finishes (new pages keep
 * arriving while it copies; what it reports is the WAL as it was when it
 * began), and SQLite starts the WAL again from the top only when a write
 * finds it all copied: under steady writes it would grow without bound. So
 * once a checkpoint reports RESTART_PAGES or more, the group commit pauses (writes queue; the event loop stays free) for one more
 * checkpoint, which copies only the pages written since the last one; the
 * next write then starts the WAL again. Should the worker fail to start or
 * die, `fallBack` is called (the caller turns automatic checkpoints back on).
 */
export class Checkpointer {
  readonly #worker: Worker
  readonly #group: GroupCommit
  readonly #timer: NodeJS.Timeout
  #closing = false
  /** A checkpoint asked for and not answered yet (ticks never overlap). */
  #running = false
  #pauseTimer: NodeJS.Timeout | undefined
  readonly #exited: Promise<void>

  constructor (path: string, group: GroupCommit, fallBack: () => void) {
    this.#group = group
    this.#worker = new Worker(WORKER, {
      eval: true,
      workerData: { path, driver: createRequire(import.meta.url).resolve('better-sqlite3') }
    })
    // Neither the worker nor the timer keeps a process alive that has nothing else to do.
    this.#worker.unref()
    this.#worker.on('error', () => { /* reported by 'exit' */ })
    this.#worker.on('message', (m: Checkpointed) => { this.#answered(m) })
    this.#exited = new Promise((resolve) => {
      this.#worker.once('exit', () => {
        clearInterval(this.#timer)
        this.#resume()
        if (!this.#closing) fallBack()
        resolve()
      })
    })
    this.#timer = setInterval(() => { this.#ask() }, CHECKPOINT_INTERVAL_MS).unref()
  }

  #ask (): void {
    if (this.#running || this.#closing) return
    this.#running = true
    this.#worker.postMessage('checkpoint')
  }

  #answered (m: Checkpointed): void {
    this.#running = false
    if (this.#pauseTimer !== undefined) {
      // The checkpoint made while writes were paused: done, whatever it managed (a reader may have held pages back).
      this.#resume()
      return
    }
    if (m.failed !== true && !this.#closing && m.log >= RESTART_PAGES) {
      this.#group.pause()
      this.#pauseTimer = setTimeout(() => { this.#resume() }, PAUSE_LIMIT_MS)
      this.#ask()
    }
  }

  #resume (): void {
    clearTimeout(this.#pauseTimer)
    this.#pauseTimer = undefined
    this.#group.resume()
  }

  /** Stops the worker and closes its connection; resolves once it is gone. */
  async close (): Promise<void> {
    this.#closing = true
    clearInterval(this.#timer)
    this.#resume()
    this.#worker.postMessage('close')
    const timer = setTimeout(() => { void this.#worker.terminate() }, 5000)
    await this.#exited
    clearTimeout(timer)
  }
}
