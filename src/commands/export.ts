import { Ajv } from 'ajv'
import { validationFailures } from '../http/errors/index.js'
import { TEXT_VALIDATION } from '../http/rest/index.js'
import { type CollectionModel, csvColumns, csvHeader, csvRow, parseListQuery, type ListRequest, querystringSchema } from '../records/index.js'
import { collectionFrom, COLLECTIONS, COLLECTIONS_HELP, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, parseCommandArgs, STORE_OPTIONS, storeConfig, UsageError, withStores, type CommandIO } from './common.js'
import { Progress } from './progress.js'
import { exportFromServer } from './export-url.js'
import { dataFormat } from './import.js'
import { collectionNames } from '../data/collection.js'

export const EXPORT_USAGE = `Usage: rqs export --store sqlite:PATH|postgres://… --service ${collectionNames(COLLECTIONS, '|')}|NAME [--collections FILE] [--query QUERY] [--format ndjson|csv [--bom]] > FILE.ndjson
       rqs export --url http://HOST:PORT --service NAME [--token TOKEN] [--follow-redirects] [--query QUERY] [--format ndjson|csv] > FILE.ndjson

Writes every record of the service to stdout, one JSON object a line (NDJSON), in id order.
  --store     the database (or RQS_STORE, DATABASE_URL)
  --url       a running rqs server instead (any store, the memory store too): its API streams the
              records; --token (or RQS_TOKEN) when it asks for one; the server checks --query.
              A redirect to another origin (scheme, host, port) stops the export, naming it
  --follow-redirects  follow such a redirect (the token is not sent there)
  --service   ${collectionNames(COLLECTIONS)}
  --collections ${COLLECTIONS_HELP}
  --query     the list's query parameters, e.g. 'age[gte]=18&sort=lastName' (see the README)
  --format    ndjson (the default) or csv: RFC 4180 in UTF-8, a header row of the fields (id
              first), CRLF line ends, absent fields empty, empty texts "", cells as stored
              (a text starting with = + - @ is not escaped: a spreadsheet may take it for a formula)
  --bom       with --format csv: start the file with a UTF-8 byte order mark, which Excel needs
              to show accented letters right (É, not Ã‰); off by default (other tools keep it)
Progress goes to stderr: a bar on a terminal, one summary line otherwise.
`

/** `rqs export`: streams a service's records as NDJSON or CSV to stdout, with back-pressure, from any store. */
export async function runExport (argv: string[], io: CommandIO): Promise<number> {
  let args
  try {
    args = parseCommandArgs(argv, { ...STORE_OPTIONS, query: { type: 'string' }, format: { type: 'string' }, url: { type: 'string' }, token: { type: 'string' }, bom: { type: 'boolean' }, 'follow-redirects': { type: 'boolean' } })
    if (args.values.help === true) { io.stdout.write(EXPORT_USAGE); return EXIT_OK }
    if (args.positionals.length > 0) throw new UsageError(`unexpected argument "${args.positionals[0] as string}"`)
  } catch (err) {
    return usage(io, err)
  }
  if (args.values.url !== undefined) {
    try {
      if (args.values.store !== undefined) throw new UsageError('--url and --store exclude each other: export from a running server or from a database')
      if (args.values.service === undefined) throw new UsageError('--service is required: the collection to export')
      if (args.values.bom === true) throw new UsageError('--bom applies to --store; from a server, ask it for the mark: --query \'bom=true\'')
      const url = args.values.url
      const options = { url, service: args.values.service, query: args.values.query ?? '', format: dataFormat(args.values.format, undefined), token: args.values.token ?? io.env.RQS_TOKEN, followRedirects: args.values['follow-redirects'] === true }
      return await exportFromServer(options, io, new Output(io.stdout))
    } catch (err) {
      return usage(io, err)
    }
  }
  let collection, config, list, format
  try {
    format = dataFormat(args.values.format, undefined)
    collection = collectionFrom(args.values.service, args.values.collections, io.env)
    config = storeConfig(args.values.store, io.env, args.values.collections)
    list = listFromQuery(collection.model, args.values.query ?? '')
    if (args.values.bom === true && format !== 'csv') throw new UsageError('--bom applies to --format csv only')
  } catch (err) {
    return usage(io, err)
  }
  const { filter, sort, limit } = list
  try {
    return await withStores(config, async (stores) => {
      const store = collection.store(stores)
      const progress = new Progress({ stream: io.stderr, command: 'rqs export', verb: 'exported', noun: collection.name, total: io.stderr.isTTY === true ? await store.count(filter) : undefined })
      const output = new Output(io.stdout)
      // The HTTP export's columns: an object field by dotted path (issue 29).
      const columns = csvColumns(collection.model)
      const write = format === 'csv' ? (record: unknown) => csvRow(record, columns) : collection.line
      let records = 0
      let text = format === 'csv' ? `${args.values.bom === true ? '\ufeff' : ''}${csvHeader(columns)}` : ''
      for await (const batch of store.batches({ ...filter, sort, limit })) {
        for (const record of batch) text += write(record)
        records += batch.length
        if (!await output.write(text)) break // the reader went away (a closed pipe): stop quietly
        text = ''
        progress.update(records)
      }
      if (text !== '') await output.write(text) // the header of an empty export
      progress.done()
      return EXIT_OK
    })
  } catch (err) {
    io.stderr.write(`rqs export: ${(err as Error).message}\n`)
    return EXIT_FAILURE
  }
}

function usage (io: CommandIO, err: unknown): number {
  if (!(err instanceof UsageError)) throw err
  io.stderr.write(`rqs export: ${err.message}\n\n${EXPORT_USAGE}`)
  return EXIT_USAGE
}

const queryAjv = new Ajv(TEXT_VALIDATION)

/** `--query` read exactly as the list route reads its query string for a stream: every matching record unless `limit` says otherwise. */
export function listFromQuery (model: CollectionModel, text: string): ListRequest {
  const query: Record<string, string | string[]> = {}
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = query[key]
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value]
  }
  const validate = queryAjv.compile(querystringSchema(model))
  if (!validate(query)) throw new UsageError(`--query: ${validationFailures(validate.errors ?? [], 'querystring').map((f) => f.detail.replace(/^querystring\./, '')).join('; ')}`)
  try {
    return parseListQuery(model, query, 'stream')
  } catch (err) {
    throw new UsageError(`--query: ${(err as Error).message}`)
  }
}

/** stdout with back-pressure: waits for 'drain'; false once the reader has gone (EPIPE). */
class Output {
  #closed = false
  constructor (private readonly stream: NodeJS.WritableStream) {
    stream.on('error', () => { this.#closed = true })
  }

  async write (text: string): Promise<boolean> {
    if (this.#closed) return false
    if (this.stream.write(text)) return true
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.stream.off('drain', done).off('close', done).off('error', done)
        resolve()
      }
      this.stream.on('drain', done).on('close', done).on('error', done)
    })
    return !this.#closed
  }
}
