import { readdirSync, statSync } from 'node:fs'
import { basename, extname, join } from 'node:path'
import type { CollectionDeclaration } from '../domain/index.js'
import type { ServedCollection } from '../data/collection.js'
import { collectionNames } from '../data/collection.js'
import { UsageError } from './common.js'

/** The file extensions a directory's data files have: NDJSON and CSV. */
const DATA_FILE = /\.(ndjson|jsonl|json|csv)$/i

/** One file of a multi-collection import and the collection it is named after. */
export interface ImportStep {
  file: string
  collection: ServedCollection
}

/** Whether `path` names a directory (a missing path is left to the file's own reading, which words it). */
export function isDirectory (path: string): boolean {
  try { return statSync(path).isDirectory() } catch { return false }
}

/**
 * The files of an import of several collections (files, or one directory's
 * data files), each named after its collection (`authors.ndjson`,
 * `books.csv`), in dependency order: a collection whose records name records
 * of another (x-references) comes after it, so every reference an import
 * checks is already stored. A cycle of references is refused, naming it.
 */
export function importSteps (paths: readonly string[], collections: readonly ServedCollection[], declarations: readonly CollectionDeclaration[]): ImportStep[] {
  const files = paths.length === 1 && isDirectory(paths[0] as string)
    ? readdirSync(paths[0] as string).filter((f) => DATA_FILE.test(f)).sort().map((f) => join(paths[0] as string, f))
    : [...paths]
  if (files.length === 0) throw new UsageError(`${paths[0] as string} holds no .ndjson, .jsonl, .json or .csv file`)
  const byName = new Map<string, ImportStep>()
  for (const file of files) {
    if (file === '-') throw new UsageError('stdin (-) holds one collection: give it alone, with --service')
    const name = basename(file, extname(file))
    const collection = collections.find((c) => c.name === name)
    if (collection === undefined) throw new UsageError(`${file}: a file of several is named after its collection, and there is no collection "${name}" (${collectionNames(collections)})`)
    const held = byName.get(name)
    if (held !== undefined) throw new UsageError(`${held.file} and ${file} are both for ${name}: give one file a collection`)
    byName.set(name, { file, collection })
  }
  const references = new Map(declarations.map((d) => [d.name, Object.values(d.references ?? {}).map((r) => r.collection)]))
  const ordered: ImportStep[] = []
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (name: string, path: string[]): void => {
    if (state.get(name) === 'done') return
    if (state.get(name) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(name)), name]
      throw new UsageError(`the collections refer to each other in a cycle (${cycle.join(' → ')}): no order stores every reference before it is named; import them one at a time`)
    }
    state.set(name, 'visiting')
    // Only the collections being imported are ordered; a target already stored needs no place in the order.
    for (const target of references.get(name) ?? []) if (byName.has(target) && target !== name) visit(target, [...path, name])
    state.set(name, 'done')
    ordered.push(byName.get(name) as ImportStep)
  }
  for (const name of byName.keys()) visit(name, [])
  return ordered
}
