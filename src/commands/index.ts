import type { CommandIO } from './common.js'
import { runExport } from './export.js'
import { runImport } from './import.js'

export type DataCommand = (argv: string[], io: CommandIO) => Promise<number>

const COMMANDS = new Map<string, DataCommand>([['export', runExport], ['import', runImport]])

/** The bulk command of that name (`rqs export`, `rqs import`), if it is one. */
export function dataCommand (name: string | undefined): DataCommand | undefined {
  return name === undefined ? undefined : COMMANDS.get(name)
}

export type { CommandIO }
