/**
 * rqs serving declared collections (servers/rqs-declared.mjs), for the rows
 * of the verbs, relations, webhooks and feature-cost issues: one place that
 * writes the declaration, picks the store (a fresh PostgreSQL database per
 * server, so two servers never share a table), sets the options and seeds
 * the records before the server listens.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freshDatabase } from './postgres.js'
import { onInterrupt, type ServerSpec } from './procs.js'

/**
 * A value of a record template: a string (`{i}` becomes the record's
 * number, from 0), a constant, a list of templates, or a cycle —
 * `from + ((i + offset) % cycle) * step`.
 */
export type Template = string | number | boolean | null | Template[] | { cycle: number, from?: number, step?: number, offset?: number }

/** What the server does before listening: bulk-create `count` records, or send one request. */
export type SetupStep =
  | { seed: { collection: string, count: number, record: Record<string, Template> } }
  | { method: 'POST' | 'PUT' | 'PATCH', url: string, body: unknown }
  | { method: 'GET', url: string }

export type StoreKind = 'memory' | 'sqlite' | 'postgres'

export interface DeclaredServer {
  label: string
  /** `{"collections": {…}}`, as a `--collections` file holds it. */
  declaration: unknown
  store: StoreKind
  setup?: SetupStep[]
  /** More RQS_* options (RQS_WEBHOOKS, RQS_WEBHOOK_ALLOW_HOSTS …). */
  options?: Record<string, string>
  nodeArgs?: string[]
}

/** Where the runner keeps the declaration files and SQLite databases, and how it reaches PostgreSQL. */
export interface DeclaredContext {
  temp: string
  databaseUrl: string | undefined
  /** Registers what to do at the end of the run (and on Ctrl-C). */
  cleanup: (drop: () => Promise<void>) => void
}

/** A `ServerSpec` for the pool: files written, database created, options set. */
export async function declaredSpec (ctx: DeclaredContext, server: DeclaredServer): Promise<ServerSpec> {
  const name = server.label.replace(/\W+/g, '-')
  const file = join(ctx.temp, `${name}.collections.json`)
  writeFileSync(file, JSON.stringify(server.declaration))
  return {
    label: server.label,
    script: 'rqs-declared.mjs',
    startTimeoutMs: 900_000,
    nodeArgs: server.nodeArgs,
    env: {
      RQS_COLLECTIONS: file,
      RQS_STORE: await storeLocation(ctx, server.store, name),
      // Bulk creates of 10 000 records are larger than the default 1 MB.
      RQS_BODY_LIMIT: '64mb',
      BENCH_SETUP: JSON.stringify(server.setup ?? []),
      ...server.options
    }
  }
}

/** The store's location: memory, a new SQLite file, or a new PostgreSQL database dropped at the end. */
export async function storeLocation (ctx: DeclaredContext, store: StoreKind, name: string): Promise<string> {
  if (store === 'memory') return 'memory'
  if (store === 'sqlite') return `sqlite:${join(ctx.temp, `${name}.db`)}`
  if (ctx.databaseUrl === undefined) throw new Error('DATABASE_URL is not set')
  const db = await freshDatabase(ctx.databaseUrl)
  ctx.cleanup(db.drop)
  onInterrupt(db.drop)
  return db.url
}

/** The `RQS_STORE` a declared server runs on (the PostgreSQL URL or the SQLite file), for the by-hand baselines. */
export function storeOf (spec: ServerSpec): string {
  return spec.env?.RQS_STORE ?? 'memory'
}

// ---------------------------------------------------------------- the library

/** Authors, tags and books (an author reference, a list of tags): the relations issue's example, with a price. */
export const LIBRARY = {
  collections: {
    authors: { schema: { type: 'object', properties: { name: { type: 'string', maxLength: 200 } }, required: ['name'] } },
    tags: { schema: { type: 'object', properties: { label: { type: 'string', maxLength: 40 } }, required: ['label'] } },
    books: {
      schema: {
        type: 'object',
        properties: {
          title: { type: 'string', maxLength: 200 },
          year: { type: 'integer' },
          price: { type: 'number' },
          author: { type: 'integer', 'x-references': 'authors' },
          tags: { type: 'array', items: { type: 'integer', 'x-references': 'tags' }, uniqueItems: true, 'x-on-delete': 'remove' }
        },
        required: ['title', 'year', 'author']
      }
    }
  }
}
export const AUTHORS = 100
export const TAGS = 20

/** 100 authors, 20 tags and `books` books: 120 years, 50 prices, each author and two tags in turn. */
export function librarySetup (books: number): SetupStep[] {
  return [
    { seed: { collection: 'authors', count: AUTHORS, record: { name: 'Author {i}' } } },
    { seed: { collection: 'tags', count: TAGS, record: { label: 'tag {i}' } } },
    {
      seed: {
        collection: 'books',
        count: books,
        record: {
          title: 'Book {i}',
          year: { cycle: 120, from: 1900 },
          price: { cycle: 50, from: 0.5 },
          author: { cycle: AUTHORS, from: 1 },
          tags: [{ cycle: TAGS, from: 1 }, { cycle: TAGS, from: 1, offset: 7 }]
        }
      }
    }
  ]
}

/** A book as a write sends it. */
export const BOOK_INPUT = { title: 'Posted', year: 2000, price: 1.5, author: 1, tags: [1, 2] }
