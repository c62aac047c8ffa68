import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import type { Stores } from '../domain/index.js'
import { ADDRESSES, STUDENTS, type Dataset } from './datasets.js'
import { readRecords } from './read-records.js'

/**
 * `rqs serve --seed FILE[,FILE…]`: loads NDJSON files (as `rqs export` writes
 * them) into the stores at start-up, each all or nothing, before the server
 * listens. A file's first record tells its service: students have `firstName`,
 * addresses `city`. Returns what was loaded, for the log.
 */
export async function seedStores (stores: Stores, files: readonly string[]): Promise<Array<{ file: string, service: string, records: number }>> {
  const loaded = []
  for (const file of files) {
    try {
      const dataset = await datasetOf(file)
      if (dataset === undefined) continue // nothing but blank lines
      const records = await dataset.store(stores).importAll(readRecords(createReadStream(file), dataset, { skipInvalid: false }))
      loaded.push({ file, service: dataset.name, records })
    } catch (err) {
      throw new Error(`seed file ${file}: ${(err as Error).message}`, { cause: err })
    }
  }
  return loaded
}

async function datasetOf (file: string): Promise<Dataset | undefined> {
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity })
  let blank = true
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue
      blank = false
      let first: unknown
      try { first = JSON.parse(line) } catch { break }
      if (typeof first === 'object' && first !== null && 'firstName' in first) return STUDENTS as unknown as Dataset
      if (typeof first === 'object' && first !== null && 'city' in first) return ADDRESSES as unknown as Dataset
      break
    }
  } finally {
    lines.close()
  }
  if (blank) return undefined
  throw new Error('the first line is neither a student (firstName, lastName, age) nor an address (name, city, postalCode)')
}
