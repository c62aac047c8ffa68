/**
 * The servers a run needs, started on first use (in parallel where a row
 * needs several) and stopped as soon as no later row needs them, so at most
 * one group of idle servers sits on the server core at a time.
 */
import { startServer, type RunningServer, type ServerSpec } from './procs.js'

/** A server spec, or a function that derives one from servers already running (the bare server copies rqs's bytes). */
export type ServerRecipe = ServerSpec | ((pool: ServerPool) => Promise<ServerSpec>)

export class ServerPool {
  readonly #recipes: Record<string, ServerRecipe>
  readonly #running = new Map<string, Promise<RunningServer>>()

  constructor (recipes: Record<string, ServerRecipe>) {
    this.#recipes = recipes
  }

  /** The running server under `key`, started now if it is not yet. */
  async get (key: string): Promise<RunningServer> {
    let server = this.#running.get(key)
    if (server === undefined) {
      const recipe = this.#recipes[key]
      if (recipe === undefined) throw new Error(`no server recipe "${key}"`)
      server = (typeof recipe === 'function' ? recipe(this) : Promise.resolve(recipe)).then(startServer)
      this.#running.set(key, server)
    }
    return await server
  }

  /** Starts every server of `keys` (those independent of each other at the same time). */
  async getAll (keys: readonly string[]): Promise<Record<string, RunningServer>> {
    const servers = await Promise.all(keys.map(async (k) => [k, await this.get(k)] as const))
    return Object.fromEntries(servers)
  }

  /** Stops every running server not in `keep`. */
  async release (keep: ReadonlySet<string> = new Set()): Promise<void> {
    const stopping: Array<Promise<void>> = []
    for (const [key, server] of this.#running) {
      if (keep.has(key)) continue
      this.#running.delete(key)
      stopping.push(server.then((s) => s.stop(), () => {}))
    }
    await Promise.all(stopping)
  }
}
