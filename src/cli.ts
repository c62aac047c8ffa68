import { ConfigError } from './config.js'
import { parseArguments, UsageError, type CliCommand } from './cli/command.js'
import { commandHelp, generalHelp } from './cli/help.js'
import { EXIT_OK, EXIT_USAGE, processIo, type CliIo } from './cli/io.js'
import { serveCommand } from './cli/serve.js'
import { dataCommands } from './commands/index.js'
import { tokenCliCommand } from './commands/token.js'
import { closestWord } from './lib/suggest.js'
import { PACKAGE_VERSION as version } from './version.js'

export { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, type CliIo } from './cli/io.js'
export { serve } from './cli/serve.js'
export type { CliCommand } from './cli/command.js'

/** `rqs help [command]`: the same text as `rqs --help` and `rqs <command> --help`. */
const helpCommand: CliCommand = {
  name: 'help',
  summary: 'show the help of a command: rqs help serve',
  usage: 'rqs help [command]',
  options: [],
  maxPositionals: 1,
  run: async ({ positionals: [name], io, env }) => {
    if (name === undefined) { io.stdout.write(generalHelp(COMMANDS, version)); return EXIT_OK }
    const command = commandNamed(name)
    // A command that reads its own arguments prints its own help: `rqs help import` is `rqs import --help`.
    if (command.ownArguments !== undefined) return await command.ownArguments(['--help'], env)
    io.stdout.write(commandHelp(command))
    return EXIT_OK
  }
}

/** Every subcommand, in the order `rqs --help` lists them. A new command is a CliCommand and one entry here. */
export const COMMANDS: readonly CliCommand[] = [serveCommand, ...dataCommands, tokenCliCommand, helpCommand]

function commandNamed (name: string): CliCommand {
  const command = COMMANDS.find((c) => c.name === name)
  if (command !== undefined) return command
  const guess = closestWord(name, COMMANDS.map((c) => c.name))
  throw new UsageError(`unknown command "${name}"${guess === undefined ? '' : ` (did you mean "${guess}"?)`}; see 'rqs --help'`)
}

/**
 * Before any command only --help and --version mean something. An option of
 * a command written before it is pointed to its command.
 */
function withoutCommand (argv: readonly string[], io: CliIo): number {
  const global = [{ flag: 'help', short: 'h', help: '', takesValue: false }, { flag: 'version', short: 'v', help: '', takesValue: false }]
  const [first] = argv
  if (first === undefined) throw new UsageError("a command is required, e.g. rqs serve; see 'rqs --help'")
  if (!first.startsWith('-')) commandNamed(first)
  const flag = first.replace(/^-+/, '').split('=')[0] ?? ''
  const owner = COMMANDS.find((c) => c.options.some((o) => o.flag === flag || o.short === flag))
  if (owner !== undefined && !global.some((o) => o.flag === flag || o.short === flag)) {
    const rest = argv.filter((arg) => arg !== owner.name).join(' ')
    throw new UsageError(`${first} is an option of 'rqs ${owner.name}': write it after the command, e.g. rqs ${owner.name} ${rest}`)
  }
  const parsed = parseArguments(argv, global.slice(1), 'rqs --help')
  if (parsed.help) { io.stdout.write(generalHelp(COMMANDS, version)); return EXIT_OK }
  if (parsed.flags.version === true) { io.stdout.write(`${version}\n`); return EXIT_OK }
  throw new UsageError("a command is required, e.g. rqs serve; see 'rqs --help'")
}

/** `rqs <argv>`: resolves with the exit code. Importing this module does nothing; src/bin.ts runs it. */
export async function main (argv: string[], env: NodeJS.ProcessEnv, io: CliIo = processIo): Promise<number> {
  try {
    const [name, ...args] = argv
    const command = COMMANDS.find((c) => c.name === name)
    if (command === undefined) return withoutCommand(argv, io)
    if (command.ownArguments !== undefined) return await command.ownArguments(args, env)
    const parsed = parseArguments(args, command.options, `rqs ${command.name} --help`, command.maxPositionals)
    if (parsed.help) { io.stdout.write(commandHelp(command)); return EXIT_OK }
    return await command.run({ flags: parsed.flags, positionals: parsed.positionals, env, io })
  } catch (err) {
    if (!(err instanceof UsageError) && !(err instanceof ConfigError)) throw err
    io.stderr.write(`rqs: ${err.message}\n`)
    return EXIT_USAGE
  }
}
