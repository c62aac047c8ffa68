import { printSchema, type GraphQLSchema } from 'graphql'
import type { CollectionParts } from '../../graphql/schema.js'
import type { Album } from './albums.js'
import type { AlbumsConfig } from './config.js'
import { CostBudget } from './cost.js'
import { QueryEngine } from './engine.js'
import { buildAlbumSchema, SCHEMA_SDL } from './schema.js'

/** The executable schema of one moment, with what is made for it: its engine (document and compiled-query caches), cost budget and SDL. */
export interface SchemaState {
  readonly schema: GraphQLSchema
  readonly engine: QueryEngine
  readonly costs: CostBudget
  readonly sdl: string
}

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
  #parts: CollectionParts | undefined
  /** The engine of every schema still in use by a request or subscription (weakly: they go with the schema). */
  readonly #engines = new WeakMap<GraphQLSchema, QueryEngine>()
  readonly #listeners = new Set<() => void>()

  constructor (private readonly albums: readonly Album[], private readonly config: AlbumsConfig, private readonly streamPath: string, parts?: CollectionParts) {
    this.#parts = parts
  }

  get state (): SchemaState {
    return (this.#state ??= this.#build(this.#parts))
  }

  /** The engine that prepared a request's document: the one of the schema its execution arguments carry. */
  engineOf (schema: GraphQLSchema): QueryEngine {
    return this.#engines.get(schema) ?? this.state.engine
  }

  /** Builds the schema for the collections' new fields and serves it from now on (a build that throws leaves the old one in place). */
  replace (parts: CollectionParts): void {
    this.#state = this.#build(parts)
    this.#parts = parts
    for (const listener of this.#listeners) listener()
  }

  /** Hears every swap (the answer cache forgets the old schema's answers). */
  onReplace (listener: () => void): void {
    this.#listeners.add(listener)
  }

  #build (parts: CollectionParts | undefined): SchemaState {
    const schema = buildAlbumSchema(this.albums, parts)
    const engine = new QueryEngine(schema, this.config)
    engine.streamPath = this.streamPath
    this.#engines.set(schema, engine)
    const sdl = schema.getMutationType() == null ? SCHEMA_SDL : `${printSchema(schema)}\n`
    return { schema, engine, costs: new CostBudget(schema, this.config.maxCost), sdl }
  }
}
