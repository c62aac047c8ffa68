import type { DeclaredOption } from '../config.js'
import type { CliCommand } from './command.js'

/** Help lines are wrapped to this many columns (a terminal's usual width or wider). */
const WIDTH = 100
/** The option column never grows beyond this; a longer option puts its help on the next line. */
const MAX_OPTION_COLUMN = 34

/** `-p, --port <n>` (switches have no placeholder; options without a short form line up under the long ones). */
function optionSynopsis (o: DeclaredOption): string {
  const short = o.short === undefined ? '    ' : `-${o.short}, `
  return `${short}--${o.flag}${o.takesValue ? ` <${o.value ?? 'value'}>` : ''}`
}

/** Joins words that must stay on one line (`[env PORT]`); wrap() turns it back into a space. */
const GLUE = '\u0000'

function wrap (text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter((w) => w !== '').map((w) => w.replaceAll(GLUE, ' '))) {
    if (line !== '' && line.length + 1 + word.length > width) { lines.push(line); line = word } else line = line === '' ? word : `${line} ${word}`
  }
  if (line !== '') lines.push(line)
  return lines
}

/** A two-column list: names on the left, wrapped descriptions on the right. */
function columns (rows: ReadonlyArray<[string, string]>): string[] {
  const left = Math.min(MAX_OPTION_COLUMN, Math.max(...rows.map(([name]) => name.length))) + 2
  const lines: string[] = []
  for (const [name, text] of rows) {
    const wrapped = wrap(text, WIDTH - left - 2)
    if (name.length + 2 > left) { lines.push(`  ${name}`); wrapped.forEach((l) => lines.push(`  ${' '.repeat(left)}${l}`)); continue }
    wrapped.forEach((l, i) => lines.push(`  ${(i === 0 ? name : '').padEnd(left)}${l}`))
  }
  return lines
}

/** The options of a command as `--help` lists them, each with its environment variable. */
function optionRows (options: readonly DeclaredOption[]): Array<[string, string]> {
  return options.map((o) => [optionSynopsis(o), o.env === undefined ? o.help : `${o.help} [env${GLUE}${o.env}]`])
}

/** `rqs <command> --help`. */
export function commandHelp (command: CliCommand): string {
  return [
    `Usage: ${command.usage}`,
    ...(command.description === undefined ? [] : ['', ...wrap(command.description, WIDTH)]),
    '',
    'Options:',
    ...columns([...optionRows(command.options), ['-h, --help', 'show this help']]),
    ''
  ].join('\n')
}

/** `rqs --help`: the commands and the options that need none. */
export function generalHelp (commands: readonly CliCommand[], version: string): string {
  const first = commands[0]?.name ?? 'serve'
  return [
    `rqs ${version} — Record and Query Services`,
    '',
    'Usage: rqs <command> [options]',
    '       rqs --help | --version',
    '',
    'Commands:',
    ...columns(commands.map((c) => [c.name, c.summary])),
    '',
    'Options:',
    ...columns([['-h, --help', 'show this help'], ['-v, --version', 'print the version']]),
    '',
    `Each command has its own options: rqs <command> --help (e.g. rqs ${first} --help).`,
    ''
  ].join('\n')
}
