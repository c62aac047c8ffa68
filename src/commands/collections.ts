import { planChange, type CollectionDeclaration, type RecordStores, type SchemaFindings, type SchemaPlan } from '../domain/index.js'
import { ConfigError } from '../options.js'
import { checkOneCollection, fromFile } from '../services/collections/index.js'
import { EXIT_OK, EXIT_USAGE, parseCommandArgs, storeConfig, UsageError, withStores, type CommandIO } from './common.js'

export const COLLECTIONS_USAGE = `Usage: rqs collections export --store sqlite:PATH|postgres://… > collections.json
       rqs collections plan --store sqlite:PATH|postgres://… FILE

export  writes the declarations the store keeps now ({"collections": {…}}, as --collections reads
        them): those of the declarations file as last started, and those created or changed
        through the admin API (POST/PUT /collections)
plan    shows what a start with FILE would change, one plan a collection (fields added, dropped,
        renamed, converted; unique keys; with what they meet in the records held), as JSON;
        changes nothing. Collections created through the admin API and not in FILE are kept.
  --store   the database (or RQS_STORE, DATABASE_URL)
`

/** `rqs collections export|plan`: reads the declarations a store keeps; changes nothing. */
export async function runCollections (argv: string[], io: CommandIO): Promise<number> {
  let args
  try {
    args = parseCommandArgs(argv, { store: { type: 'string' }, help: { type: 'boolean', short: 'h' } })
    if (args.values.help === true) { io.stdout.write(COLLECTIONS_USAGE); return EXIT_OK }
    const [action, ...rest] = args.positionals
    if (action === 'export' && rest.length === 0) return await exportDeclarations(storeConfig(args.values.store, io.env), io)
    if (action === 'plan' && rest.length === 1) return await planFile(storeConfig(args.values.store, io.env), rest[0] as string, io)
    throw new UsageError(action === undefined ? 'export or plan is required' : `"${[action, ...rest].join(' ')}": use export, or plan FILE`)
  } catch (err) {
    if (!(err instanceof UsageError) && !(err instanceof ConfigError)) throw err
    io.stderr.write(`rqs collections: ${err.message}\n\n${COLLECTIONS_USAGE}`)
    return EXIT_USAGE
  }
}

type Config = ReturnType<typeof storeConfig>

/** The declarations the store keeps, by name, removed ones left out. */
async function keptDeclarations (stores: RecordStores): Promise<Map<string, unknown>> {
  const saved = await stores.schema?.saved() ?? []
  return new Map(saved.filter((s) => s.source !== null).map((s) => [s.name, s.source]))
}

async function exportDeclarations (config: Config, io: CommandIO): Promise<number> {
  const kept = await withStores(config, keptDeclarations)
  io.stdout.write(`${JSON.stringify({ collections: Object.fromEntries(kept) }, null, 2)}\n`)
  return EXIT_OK
}

interface FilePlan { plan: SchemaPlan, findings?: SchemaFindings }

async function planFile (config: Config, file: string, io: CommandIO): Promise<number> {
  const declared = fromFile(file, file).declared
  const plans = await withStores(config, async (stores) => {
    const kept = await keptDeclarations(stores)
    const out: Array<FilePlan | { collection: string, kept: true }> = []
    for (const next of declared) {
      const name = next.declaration.name
      const source = kept.get(name)
      const before: CollectionDeclaration | undefined = source === undefined ? undefined : checkOneCollection(name, source).declaration
      const plan = planChange(name, before, next.declaration, next.renamedFrom)
      if (before === undefined || stores.schema === undefined) { out.push({ plan }); continue }
      await stores.schema.open(before)
      out.push({ plan, findings: await stores.schema.inspect(plan, before) })
    }
    for (const name of kept.keys()) if (!declared.some((d) => d.declaration.name === name)) out.push({ collection: name, kept: true })
    return out
  })
  io.stdout.write(`${JSON.stringify({ plans }, null, 2)}\n`)
  return EXIT_OK
}
