import { createReadStream } from 'node:fs'
import type { RecordStores } from '../domain/index.js'
import type { ServedCollection } from './collection.js'
import { DEFAULT_MAX_LINE_BYTES, readLines, TOO_LONG } from './lines.js'
import { readRecords } from './read-records.js'

/**
 * `rqs serve --seed FILE[,FILE…]`: loads NDJSON files (as `rqs export` writes
 * them) into the stores at start-up, each all or nothing, before the server
 * listens. A file's first record tells its collection: the one whose
 * declared fields it has most of (a student line has `firstName`, an address
 * line `city`). Returns what was loaded (records stored: lines that repeat
 * an id store one record), for the log.
 */
export async function seedStores (stores: RecordStores, files: readonly string[], collections: readonly ServedCollection[]): Promise<Array<{ file: string, service: string, records: number }>> {
  const loaded = []
  for (const file of files) {
    try {
      const collection = await collectionOf(file, collections)
      if (collection === undefined) continue // nothing but blank lines
      let repeated = 0
      const read = await collection.store(stores).importAll(readRecords(createReadStream(file), collection, { skipInvalid: false, onRepeatedId: () => { repeated++ } }))
      loaded.push({ file, service: collection.name, records: read - repeated })
    } catch (err) {
      throw new Error(`seed file ${file}: ${(err as Error).message}`, { cause: err })
    }
  }
  return loaded
}

async function collectionOf (file: string, collections: readonly ServedCollection[]): Promise<ServedCollection | undefined> {
  let blank = true
  for await (const line of readLines(createReadStream(file), DEFAULT_MAX_LINE_BYTES)) {
    if (line !== TOO_LONG && line.trim() === '') continue
    blank = false
    let first: unknown
    try { first = line === TOO_LONG ? undefined : JSON.parse(line) } catch { break }
    if (typeof first === 'object' && first !== null) return recognised(Object.keys(first), collections)
    break
  }
  if (blank) return undefined
  throw new Error(unrecognised(collections))
}

/** The collection declaring most of the record's members, when exactly one does. */
function recognised (members: readonly string[], collections: readonly ServedCollection[]): ServedCollection {
  const shared = (c: ServedCollection): number => c.fields.filter((f) => members.includes(f)).length
  const [best, second] = [...collections].sort((a, b) => shared(b) - shared(a))
  if (best === undefined || shared(best) === 0 || (second !== undefined && shared(second) === shared(best))) throw new Error(unrecognised(collections))
  return best
}

/** "the first line is no record of students (id, firstName, …) or addresses (…)": what each collection declares. */
function unrecognised (collections: readonly ServedCollection[]): string {
  return `the first line is no record of ${collections.map((c) => `${c.name} (${c.fields.join(', ')})`).join(' or ')}`
}
