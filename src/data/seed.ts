import { createReadStream } from 'node:fs'
import type { Stores } from '../stores/types.js'
import { ADDRESSES, STUDENTS, type Dataset } from './datasets.js'
import { DEFAULT_MAX_LINE_BYTES, readLines, TOO_LONG } from './lines.js'
import { readRecords } from './read-records.js'

/**
 * `rqs serve --seed FILE[,FILE…]`: loads NDJSON files (as `rqs export` writes
 * them) into the stores at start-up, each all or nothing, before the server
 * listens. A file's first record tells its service: students have `firstName`,
 * addresses `city`. Returns what was loaded (records stored: lines that
 * repeat an id store one record), for the log.
 */
export async function seedStores (stores: Stores, files: readonly string[]): Promise<Array<{ file: string, service: string, records: number }>> {
  const loaded = []
  for (const file of files) {
    try {
      const dataset = await datasetOf(file)
      if (dataset === undefined) continue // nothing but blank lines
      let repeated = 0
      const read = await dataset.store(stores).importAll(readRecords(createReadStream(file), dataset, { skipInvalid: false, onRepeatedId: () => { repeated++ } }))
      loaded.push({ file, service: dataset.name, records: read - repeated })
    } catch (err) {
      throw new Error(`seed file ${file}: ${(err as Error).message}`, { cause: err })
    }
  }
  return loaded
}

async function datasetOf (file: string): Promise<Dataset | undefined> {
  let blank = true
  for await (const line of readLines(createReadStream(file), DEFAULT_MAX_LINE_BYTES)) {
    if (line !== TOO_LONG && line.trim() === '') continue
    blank = false
    let first: unknown
    try { first = line === TOO_LONG ? undefined : JSON.parse(line) } catch { break }
    if (typeof first === 'object' && first !== null && 'firstName' in first) return STUDENTS as unknown as Dataset
    if (typeof first === 'object' && first !== null && 'city' in first) return ADDRESSES as unknown as Dataset
    break
  }
  if (blank) return undefined
  throw new Error('the first line is neither a student (firstName, lastName, age) nor an address (name, city, postalCode)')
}
