import type { CliCommand } from '../cli/command.js'
import { collectionNames } from '../data/collection.js'
import { COLLECTIONS, type CommandIO } from './common.js'

export type { CommandIO }

/** The process's own streams: the bulk commands pipe NDJSON through them. */
function processStreams (env: NodeJS.ProcessEnv): CommandIO {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env }
}

/**
 * Each command's code is loaded when it runs: `rqs serve` (the start) never
 * loads the readers, writers and progress bars of the bulk commands.
 *
 * `rqs export` and `rqs import`: they read their own arguments and print
 * their own help (`rqs export --help`), so `run` is never called.
 */
export const dataCommands: readonly CliCommand[] = [
  {
    name: 'export',
    summary: 'write every record of a service as NDJSON to stdout (or CSV: --format csv)',
    usage: `rqs export --store <url> | --url <server> [--token <token>] [--follow-redirects] --service ${collectionNames(COLLECTIONS, '|')} [--query <query>] [--format ndjson|csv] [--bom]`,
    options: [],
    run: async () => 2,
    ownArguments: async (args, env) => await (await import('./export.js')).runExport(args, processStreams(env))
  },
  {
    name: 'import',
    summary: 'store every record of an NDJSON file (or CSV: --format csv, or a .csv file), all or nothing',
    usage: `rqs import --store <url> --service ${collectionNames(COLLECTIONS, '|')} [--skip-invalid] [--max-line <size>] [--format ndjson|csv] <file.ndjson|file.csv>`,
    options: [],
    run: async () => 2,
    ownArguments: async (args, env) => await (await import('./import.js')).runImport(args, processStreams(env))
  },
  {
    name: 'collections',
    summary: 'write the declarations a store keeps (export), or show what a start with a file would change (plan FILE)',
    usage: 'rqs collections export|plan FILE --store <url>',
    options: [],
    run: async () => 2,
    ownArguments: async (args, env) => await (await import('./collections.js')).runCollections(args, processStreams(env))
  }
]
