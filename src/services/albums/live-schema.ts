import { printSchema, type GraphQLSchema } from 'graphql'
import type { CollectionParts } from '../../graphql/schema.js'
import { drain, inTurns } from '../../graphql/turns.js'
import type { Album } from './albums.js'
import type { AlbumsConfig } from './config.js'
import { CostBudget } from './cost.js'
import { QueryEngine } from './engine.js'
import { albumSchemaInSteps, SCHEMA_SDL } from './schema.js'

/** The executable schema of one moment, with what is made for it: its engine (document and compiled-query caches), cost budget and SDL. */
export interface SchemaState {
  readonly schema: GraphQLSchema
  readonly engine: QueryEngine
  readonly costs: CostBudget
  /** Printed when first asked for (the SDL route): at the declaration limits printing is tens of milliseconds no query needs. */
  readonly sdl: string
}

/** Every collection's fields beside `albums` as the collections are now, a collection a step (src/graphql/turns.ts). */
export type PartsInSteps = () => Generator<CollectionParts, CollectionParts>

/**
 * The GraphQL schema as the collections are now. A change of a collection
 * while the server runs builds a whole new schema (with a new engine, so
 * the parsed documents and graphql-jit's compiled queries of the old one
 * go with it) and swaps it in one assignment: a request takes the state of
 * the moment it came and finishes on it (`engineOf` finds the engine of the
 * schema its arguments name), a running subscription keeps the schema it
 * started on until it ends, and the next request sees the new collections.
 */
export class LiveSchema {
  /** Built on the first request that needs it, not at start (the start pays nothing for GraphQL). */
  #state: SchemaState | undefined
  /** Changes of the collections heard so far: a first build that saw fewer starts again. */
  #changes = 0
  /** The engine of every schema still in use by a request or subscription (weakly: they go with the schema). */
  readonly #engines = new WeakMap<GraphQLSchema, QueryEngine>()
  readonly #listeners = new Set<() => void>()

  constructor (private readonly albums: readonly Album[], private readonly config: AlbumsConfig, private readonly streamPath: string, private readonly parts?: PartsInSteps) {}

  /** The schema of this moment (built at once if `ready` has not built it yet). */
  get state (): SchemaState {
    return (this.#state ??= drain(this.#steps()))
  }

  /**
   * Builds the first schema a step per turn of the event loop, so that the
   * server keeps answering meanwhile; every request that comes before it is
   * built waits for the same build (the caller keeps its promise).
   */
  async ready (): Promise<void> {
    while (this.#state === undefined) {
      const changes = this.#changes
      const state = await inTurns(this.#steps())
      // A collection changed while it was built: built again, from the collections as they are now.
      if (changes === this.#changes) this.#state ??= state
    }
  }

  /** The engine that prepared a request's document: the one of the schema its execution arguments carry. */
  engineOf (schema: GraphQLSchema): QueryEngine {
    return this.#engines.get(schema) ?? this.state.engine
  }

  /** The collections changed: a schema served is built again at once and swapped in (a build that throws leaves the old one in place). */
  changed (): void {
    this.#changes++
    if (this.#state === undefined || this.parts === undefined) return
    this.#state = drain(this.#steps())
    for (const listener of this.#listeners) listener()
  }

  /** Hears every swap (the answer cache forgets the old schema's answers). */
  onReplace (listener: () => void): void {
    this.#listeners.add(listener)
  }

  * #steps (): Generator<void, SchemaState> {
    const schema = yield * albumSchemaInSteps(this.albums, this.parts?.())
    const engine = new QueryEngine(schema, this.config)
    engine.streamPath = this.streamPath
    this.#engines.set(schema, engine)
    let sdl: string | undefined
    return {
      schema,
      engine,
      costs: new CostBudget(schema, this.config.maxCost),
      get sdl () { return (sdl ??= schema.getMutationType() == null ? SCHEMA_SDL : `${printSchema(schema)}\n`) }
    }
  }
}
