import { closeSync, createReadStream, fstatSync, openSync } from 'node:fs'
import type { Readable } from 'node:stream'
import { ConfigError } from '../config/errors.js'
import { size as sizeReader } from '../config/readers.js'
import { collectionFrom, collectionsFrom, COLLECTIONS, COLLECTIONS_HELP, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, parseCommandArgs, STORE_OPTIONS, storeConfig, UsageError, withStores, type CommandIO } from './common.js'
import { Progress } from './progress.js'
import { BadLineError, LineTooLongError, readRecords, type DataFormat } from '../data/read-records.js'
import { DEFAULT_MAX_LINE_BYTES, describeSize, InputReadError } from '../data/lines.js'
import { collectionNames, type ServedCollection } from '../data/collection.js'
import type { Config } from '../options.js'
import { importSteps, isDirectory, type ImportStep } from './import-order.js'
import type { ImportOutcome, StoredRecord } from '../domain/index.js'

export const IMPORT_USAGE = `Usage: rqs import --store sqlite:PATH|postgres://… --service ${collectionNames(COLLECTIONS, '|')}|NAME [--collections FILE] [--skip-invalid] [--max-line SIZE] [--format ndjson|csv] FILE.ndjson|FILE.csv
       rqs import --store … [--collections FILE] [options] FILE FILE … | DIRECTORY

Stores every record of an NDJSON file (one JSON object a line; - or none reads stdin) or a CSV
file (a header row naming the columns, in any order), all or nothing: a bad line stops the
import with its number and reason, and nothing of the file is stored. Records keep their ids
(a record already stored under an id is replaced, and the summary says how many were: "(7
created, 3 replaced …)"; when lines of the file repeat an id, the last one is stored and the
summary says how many lines did). Servers using the database keep
writing while the file is read: it is staged first, then stored in one short transaction.
  --store          the database (or RQS_STORE, DATABASE_URL)
  --service        ${collectionNames(COLLECTIONS)}
  --collections    ${COLLECTIONS_HELP}
  --skip-invalid   store the valid lines; report how many lines were skipped, and which
  --max-line SIZE  longest line (CSV: record) read, e.g. 4mb (default ${describeSize(DEFAULT_MAX_LINE_BYTES)}); a longer line is a bad line
  --format         ndjson or csv (default: csv for a FILE ending in .csv, else ndjson). CSV is
                   RFC 4180 in UTF-8: cells are typed by the fields (1.0 is no integer; a
                   boolean is true or false in any case, or 1 or 0; a number uses a point), an
                   unquoted empty cell is an absent field, "" an empty text; line numbers count
                   CSV records (a quoted cell may span lines), the header being line 1
Several files (or a directory's .ndjson, .jsonl, .json and .csv files), each named after its
collection (authors.ndjson, books.csv), are imported in dependency order: a collection whose
records name records of another (x-references) after it, all or nothing: each file is staged
in turn, then all are stored in one transaction; the first that fails stops the import, and
none of the files is stored.
Progress goes to stderr: a bar on a terminal, one summary line otherwise.
`

/** How many skipped lines are described one by one; all their numbers are listed in the summary (up to MAX_LISTED). */
const MAX_DESCRIBED = 20
const MAX_LISTED = 1000

/** `rqs import`: validates an NDJSON file line by line with the API's schemas and stores it all or nothing. */
export async function runImport (argv: string[], io: CommandIO): Promise<number> {
  let options: FileOptions
  let steps: ImportStep[]
  try {
    const args = parseCommandArgs(argv, { ...STORE_OPTIONS, 'skip-invalid': { type: 'boolean' }, 'max-line': { type: 'string' }, format: { type: 'string' } })
    if (args.values.help === true) { io.stdout.write(IMPORT_USAGE); return EXIT_OK }
    const paths = args.positionals
    // With --service, one file (a directory is then refused as a file); without, several files or a directory may be given.
    const named = args.values.service !== undefined
    if (named && paths.length > 1) throw new UsageError('give one file (or - for stdin) with --service; several files (or a directory) go without it, each named after its collection (authors.ndjson, books.csv)')
    const several = !named && (paths.length > 1 || (paths.length === 1 && isDirectory(paths[0] as string)))
    if (several) {
      const { collections, declarations } = collectionsFrom(args.values.collections, io.env)
      steps = importSteps(paths, collections, declarations)
    } else {
      steps = [{ file: paths[0] ?? '-', collection: collectionFrom(args.values.service, args.values.collections, io.env) }]
    }
    const given = args.values.format
    options = {
      config: storeConfig(args.values.store, io.env, args.values.collections),
      maxLineBytes: lineLimit(args.values['max-line']),
      skipInvalid: args.values['skip-invalid'] === true,
      format: (file) => dataFormat(given, file === '-' ? undefined : file)
    }
    for (const { file } of steps) options.format(file)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    io.stderr.write(`rqs import: ${err.message}\n\n${IMPORT_USAGE}`)
    return EXIT_USAGE
  }
  if (steps.length > 1) return await importFiles(steps, options, io)
  const [{ file, collection }] = steps as [ImportStep]
  return await importFile(file, collection, options, io)
}

/** What every file of one import shares. */
interface FileOptions {
  config: Config
  maxLineBytes: number
  skipInvalid: boolean
  format: (file: string) => DataFormat
}

/** One file into one collection, all or nothing. */
async function importFile (file: string, collection: ServedCollection, options: FileOptions, io: CommandIO): Promise<number> {
  const reading = openReading(file, collection, options, io)
  if (typeof reading === 'number') return reading
  try {
    await withStores(options.config, async (stores) => await collection.store(stores).importAll(reading.records, reading.applied))
  } catch (err) {
    reading.progress.abandon()
    io.stderr.write(`rqs import: ${reading.name}: ${failure(err)}; nothing was imported\n`)
    return EXIT_FAILURE
  } finally {
    reading.close()
  }
  reading.done()
  return EXIT_OK
}

/**
 * Several files into their collections, all or nothing (the store's
 * importAllOf): each is read and checked in turn, then all are stored in
 * one transaction, so a failure in a later file leaves the earlier ones
 * unstored too.
 */
async function importFiles (steps: readonly ImportStep[], options: FileOptions, io: CommandIO): Promise<number> {
  const readings: Reading[] = []
  try {
    for (const { file, collection } of steps) {
      const reading = openReading(file, collection, options, io)
      if (typeof reading === 'number') {
        io.stderr.write(`rqs import: stopped at ${file}; none of the files was imported\n`)
        return reading
      }
      readings.push(reading)
    }
    /** The file being read when the import failed (undefined: the store refused it while storing). */
    let current: Reading | undefined
    const parts = readings.map((reading) => ({
      collection: reading.collection,
      // A collection's records as its reader checked them: what its store's importAll takes (a built-in's view stores them as read).
      source: (async function * () { current = reading; yield * reading.records as AsyncIterable<StoredRecord[]>; current = undefined })(),
      onApplied: reading.applied
    }))
    try {
      await withStores(options.config, async (stores) => {
        if (stores.importAllOf === undefined) throw new TypeError('this store cannot import several collections at once')
        await stores.importAllOf(parts)
      })
    } catch (err) {
      for (const reading of readings) reading.progress.abandon()
      const where = current === undefined ? '' : `${current.name}: `
      io.stderr.write(`rqs import: ${where}${failure(err)}; none of the files was imported (${steps.map((s) => s.file).join(', ')})\n`)
      return EXIT_FAILURE
    }
    for (const reading of readings) reading.done()
    return EXIT_OK
  } finally {
    for (const reading of readings) reading.close()
  }
}

/** A file being imported: its records as read and checked, its progress, and what to say once stored. */
interface Reading {
  name: string
  collection: string
  records: AsyncIterable<unknown[]>
  progress: Progress
  applied: (outcome: ImportOutcome) => void
  /** Reports the stored file (progress, skipped and repeated lines, replacements). */
  done: () => void
  close: () => void
}

/** Opens a file for import (a usage exit code when it cannot be read: said on stderr). */
function openReading (file: string, collection: ServedCollection, { maxLineBytes, skipInvalid, format: formatOf }: FileOptions, io: CommandIO): Reading | number {
  const format = formatOf(file)
  const name = file === '-' ? 'stdin' : file
  let input: Readable
  let size: number | undefined
  if (file === '-') {
    input = io.stdin as Readable
  } else {
    const opened = openFile(file)
    if ('problem' in opened) {
      io.stderr.write(`rqs import: cannot read ${file}: ${opened.problem}\n`)
      return EXIT_USAGE
    }
    ({ input, size } = opened)
  }

  const skipped: number[] = []
  let repeated = 0
  let read = 0
  const progress = new Progress({ stream: io.stderr, command: 'rqs import', verb: 'imported', noun: collection.name, total: size })
  const read1 = readRecords(input, collection, {
    skipInvalid,
    maxLineBytes,
    format,
    onSkipped: (line, reason) => {
      if (skipped.length < MAX_DESCRIBED) io.stderr.write(`rqs import: skipped line ${line}: ${reason}\n`)
      skipped.push(line)
    },
    onRepeatedId: () => { repeated++ },
    onProgress: (count, bytes) => { read = count; progress.update(count, size === undefined ? count : bytes) }
  })
  let outcome: ImportOutcome | undefined
  return {
    name,
    collection: collection.name,
    // The store has read the whole file when the records run out: what follows is its commit.
    records: (async function * () { yield * read1; progress.committing() })(),
    progress,
    applied: (applied) => { outcome = applied },
    done: () => {
      // Lines that repeated an id stored no record of their own: the count is of records stored.
      progress.update(read - repeated)
      const notes = [
        repeated === 0 ? '' : `; ${repeated} line${repeated === 1 ? '' : 's'} repeated the id of an earlier line (the last line of an id is stored)`,
        skipped.length === 0 ? '' : `; skipped ${skipped.length} invalid line${skipped.length === 1 ? '' : 's'}: ${listed(skipped)}`
      ]
      // Replacements are never silent: a record held under an id of the file was overwritten.
      const detail = outcome === undefined || outcome.replaced === 0 ? '' : ` (${outcome.created} created, ${outcome.replaced} replaced: the records held under those ids were overwritten)`
      progress.done(notes.join(''), detail)
    },
    close: () => { if (input !== io.stdin) input.destroy() }
  }
}

function lineLimit (text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_LINE_BYTES
  try {
    return sizeReader(text, '--max-line')
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message)
    throw err
  }
}

/** `--format`, or what the file's name says: `.csv` is CSV, anything else (stdin too) NDJSON. */
export function dataFormat (given: string | undefined, file: string | undefined): DataFormat {
  if (given === 'ndjson' || given === 'csv') return given
  if (given !== undefined) throw new UsageError(`--format must be ndjson or csv, got "${given}"`)
  return file !== undefined && /\.csv$/i.test(file) ? 'csv' : 'ndjson'
}

/** The file, opened now so that a missing or unreadable one is one line of its own, not a stack trace or a store error. */
function openFile (file: string): { input: Readable, size: number } | { problem: string } {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (err) {
    return { problem: describeFileError(err) }
  }
  try {
    const stat = fstatSync(fd)
    if (stat.isDirectory()) {
      closeSync(fd)
      return { problem: describeFileError(Object.assign(new Error('is a directory'), { code: 'EISDIR' })) }
    }
    return { input: createReadStream('', { fd }), size: stat.size }
  } catch (err) {
    closeSync(fd)
    return { problem: describeFileError(err) }
  }
}

/** `no such file` rather than `ENOENT: no such file or directory, open '…'`. */
export function describeFileError (err: unknown): string {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOENT': return 'no such file'
    case 'EACCES':
    case 'EPERM': return 'permission denied'
    case 'EISDIR': return 'it is a directory'
    case 'ENOTDIR': return 'a part of the path is not a directory'
    case 'ELOOP': return 'too many symbolic links'
    case 'ENAMETOOLONG': return 'the name is too long'
    default: return (err as Error).message
  }
}

function failure (err: unknown): string {
  if (err instanceof LineTooLongError) return `${err.message} (--max-line raises it)`
  if (err instanceof BadLineError) return err.message
  if (err instanceof InputReadError) return `reading failed: ${describeFileError(err.reason)}`
  return `the store refused the import: ${(err as Error).message}`
}

function listed (lines: number[]): string {
  const shown = lines.slice(0, MAX_LISTED).join(', ')
  return lines.length > MAX_LISTED ? `${shown}, … (${lines.length - MAX_LISTED} more)` : shown
}
