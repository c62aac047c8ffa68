/** What a row of `npm run bench` is, and what a module of rows gets from the runner (bench/run.ts). */
import type { RowResult, Settings } from './compare.js'
import type { DeclaredContext } from './declared.js'
import type { ServerRecipe } from './pool.js'
import type { RunningServer } from './procs.js'

export interface RowSpec {
  id: string
  title: string
  /** Rows measured together under one name (`--only bulk-create` selects every store's bulk-create row). */
  group?: string
  /** Keys of the pool's recipes this row needs running. */
  servers: string[]
  /** Why the row cannot run here (no DATABASE_URL …), or undefined. */
  skip?: () => string | undefined
  run: (servers: Record<string, RunningServer>) => Promise<RowResult>
}

export interface RowContext {
  settings: Settings
  quick: boolean
  declared: DeclaredContext
  /** Whether the run includes the row `id` (known once servers start): a server seeds only what its selected rows read. */
  willRun: (id: string) => boolean
}

/** Rows and the servers they need, contributed by a module beside run.ts. */
export interface RowModule {
  recipes: Record<string, ServerRecipe>
  rows: RowSpec[]
}

export const statusIs = (status: number) => (s: number): string | undefined => s === status ? undefined : `status ${s}, expected ${status}`
export const noDatabase = (): string | undefined => process.env.DATABASE_URL === undefined ? 'DATABASE_URL is not set' : undefined
