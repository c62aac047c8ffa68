import { createReadStream, statSync } from 'node:fs'
import type { Readable } from 'node:stream'
import { datasetFrom, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, parseCommandArgs, STORE_OPTIONS, storeConfig, UsageError, withStores, type CommandIO } from './common.js'
import { Progress } from './progress.js'
import { BadLineError, readRecords } from '../data/read-records.js'

export const IMPORT_USAGE = `Usage: rqs import --store sqlite:PATH|postgres://… --service students|addresses [--skip-invalid] FILE.ndjson

Stores every record of an NDJSON file (one JSON object a line; - or none reads stdin), all or
nothing: a bad line stops the import with its number and reason, and nothing of the file is
stored. Records keep their ids (a record already stored under an id is replaced; the last line of
an id wins). Servers using the database keep writing while the file is read: it is staged first,
then stored in one short transaction.
  --store          the database (or RQS_STORE, DATABASE_URL)
  --service        students or addresses
  --skip-invalid   store the valid lines; report how many lines were skipped, and which
Progress goes to stderr: a bar on a terminal, one summary line otherwise.
`

/** How many skipped lines are described one by one; all their numbers are listed in the summary (up to MAX_LISTED). */
const MAX_DESCRIBED = 20
const MAX_LISTED = 1000

/** `rqs import`: validates an NDJSON file line by line with the API's schemas and stores it all or nothing. */
export async function runImport (argv: string[], io: CommandIO): Promise<number> {
  let args
  let dataset
  let config
  try {
    args = parseCommandArgs(argv, { ...STORE_OPTIONS, 'skip-invalid': { type: 'boolean' } })
    if (args.values.help === true) { io.stdout.write(IMPORT_USAGE); return EXIT_OK }
    if (args.positionals.length > 1) throw new UsageError('give one file (or - for stdin)')
    dataset = datasetFrom(args.values.service)
    config = storeConfig(args.values.store, io.env)
  } catch (err) {
    if (!(err instanceof UsageError)) throw err
    io.stderr.write(`rqs import: ${err.message}\n\n${IMPORT_USAGE}`)
    return EXIT_USAGE
  }
  const file = args.positionals[0] ?? '-'
  let input: Readable
  let size: number | undefined
  try {
    if (file === '-') {
      input = io.stdin as Readable
    } else {
      size = statSync(file).size
      input = createReadStream(file)
    }
  } catch (err) {
    io.stderr.write(`rqs import: cannot read ${file}: ${(err as Error).message}\n`)
    return EXIT_FAILURE
  }

  const skipped: number[] = []
  const progress = new Progress({ stream: io.stderr, command: 'rqs import', verb: 'imported', noun: dataset.name, total: size })
  const records = readRecords(input, dataset, {
    skipInvalid: args.values['skip-invalid'] === true,
    onSkipped: (line, reason) => {
      if (skipped.length < MAX_DESCRIBED) io.stderr.write(`rqs import: skipped line ${line}: ${reason}\n`)
      skipped.push(line)
    },
    onProgress: (count, bytes) => { progress.update(count, size === undefined ? count : bytes) }
  })
  try {
    await withStores(config, async (stores) => await dataset.store(stores).importAll(records))
  } catch (err) {
    progress.abandon()
    const why = err instanceof BadLineError ? err.message : `the store refused the import: ${(err as Error).message}`
    io.stderr.write(`rqs import: ${file === '-' ? 'stdin' : file}: ${why}; nothing was imported\n`)
    return EXIT_FAILURE
  } finally {
    if (input !== io.stdin) input.destroy()
  }
  progress.done(skipped.length === 0 ? '' : `; skipped ${skipped.length} invalid line${skipped.length === 1 ? '' : 's'}: ${listed(skipped)}`)
  return EXIT_OK
}

function listed (lines: number[]): string {
  const shown = lines.slice(0, MAX_LISTED).join(', ')
  return lines.length > MAX_LISTED ? `${shown}, … (${lines.length - MAX_LISTED} more)` : shown
}
