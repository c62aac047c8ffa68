import { parseArgs, type ParseArgsConfig } from 'node:util'
import type { DeclaredOption, Flags } from '../config.js'
import { closestWord } from '../lib/suggest.js'
import type { CliIo } from './io.js'

/** What a command is given when it runs. */
export interface CommandContext {
  /** Option values by long name, as given on the command line (read them with resolveConfig/readSection). */
  flags: Flags
  positionals: string[]
  env: NodeJS.ProcessEnv
  io: CliIo
}

/**
 * One subcommand (`rqs serve`). It declares its own help: the summary line of
 * `rqs --help`, and the usage, description and options of `rqs <name> --help`.
 * `-h`/`--help` is added to every command; the options are those declared
 * with option() (src/config/option.ts), so parsing and help agree.
 */
export interface CliCommand {
  name: string
  /** One line in `rqs --help`. */
  summary: string
  /** Its synopsis, e.g. `rqs serve [options]`. */
  usage: string
  /** A paragraph under the synopsis in `rqs <name> --help`. */
  description?: string
  options: readonly DeclaredOption[]
  /** How many positional arguments it takes (none unless said). */
  maxPositionals?: number
  /** Resolves with the exit code; a ConfigError it throws exits 2 with its message. */
  run: (context: CommandContext) => Promise<number>
  /** Set for a command that reads its own arguments (and prints its own help): gets them unparsed. */
  ownArguments?: (args: string[], env: NodeJS.ProcessEnv) => Promise<number>
}

/** A command line that cannot be run as written; its message is one line (exit 2). */
export class UsageError extends Error {
  override name = 'UsageError'
}

const HELP: DeclaredOption = { flag: 'help', short: 'h', help: 'show this help', takesValue: false }

export type ParsedArguments = { help: true } | { help: false, flags: Flags, positionals: string[] }

/**
 * Reads `args` against a command's declared options. `--help` anywhere wins;
 * otherwise every token must be an option the command declares, with a value
 * exactly when the option takes one. A repeated option counts its last value.
 * `hint` is the help to point to in messages (`rqs serve --help`).
 */
export function parseArguments (args: readonly string[], options: readonly DeclaredOption[], hint: string, maxPositionals = 0): ParsedArguments {
  const all = [...options, HELP]
  const config: NonNullable<ParseArgsConfig['options']> = {}
  for (const o of all) config[o.flag] = { type: o.takesValue ? 'string' : 'boolean', ...(o.short === undefined ? {} : { short: o.short }) }
  // Not strict: every mistake is reported below, in our words, one line each.
  const { tokens } = parseArgs({ args: [...args], options: config, strict: false, allowPositionals: true, tokens: true })
  if (tokens.some((t) => t.kind === 'option' && t.name === HELP.flag)) return { help: true }

  const flags: Flags = {}
  const positionals: string[] = []
  const byFlag = new Map(all.map((o) => [o.flag, o]))
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue
    if (token.kind === 'positional') {
      if (positionals.length >= maxPositionals) throw new UsageError(`unexpected argument "${token.value}"; see '${hint}'`)
      positionals.push(token.value)
      continue
    }
    const option = byFlag.get(token.name)
    if (option === undefined) throw new UsageError(unknownOption(token.rawName, options, hint))
    if (!option.takesValue) {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value; see '${hint}'`)
      flags[option.flag] = true
      continue
    }
    // `--host --port 80` would read "--port" as the host: a value that looks like an option is a missing value.
    if (token.value === undefined || (!token.inlineValue && /^-[^\d]/.test(token.value))) {
      throw new UsageError(`${token.rawName} needs a value: ${token.rawName} <${option.value ?? 'value'}>; see '${hint}'`)
    }
    flags[option.flag] = token.value
  }
  return { help: false, flags, positionals }
}

function unknownOption (rawName: string, options: readonly DeclaredOption[], hint: string): string {
  const guess = rawName.startsWith('--') ? closestWord(rawName.slice(2), options.map((o) => o.flag)) : undefined
  return `unknown option ${rawName}${guess === undefined ? '' : ` (did you mean --${guess}?)`}; see '${hint}'`
}
