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

/** The width of the name column: the longest name, up to MAX_OPTION_COLUMN, plus a gap. */
function nameColumn (rows: ReadonlyArray<[string, string]>): number {
  return Math.min(MAX_OPTION_COLUMN, Math.max(...rows.map(([name]) => name.length))) + 2
}

/** A two-column list: names on the left, wrapped descriptions on the right (`left` shares the column across lists). */
function columns (rows: ReadonlyArray<[string, string]>, left = nameColumn(rows)): string[] {
  const lines: string[] = []
  for (const [name, text] of rows) {
    const wrapped = wrap(text, WIDTH - left - 2)
    if (name.length + 2 > left) { lines.push(`  ${name}`); wrapped.forEach((l) => lines.push(`  ${' '.repeat(left)}${l}`)); continue }
    wrapped.forEach((l, i) => lines.push(`  ${(i === 0 ? name : '').padEnd(left)}${l}`))
  }
  return lines
}

/** The option line of `--help`: its synopsis and its help with its environment variable. */
function optionRow (o: DeclaredOption): [string, string] {
  return [optionSynopsis(o), o.env === undefined ? o.help : `${o.help} [env${GLUE}${o.env}]`]
}

/** Headings of the option groups rqs declares; a group not named here (an extra service's) shows its key capitalised. */
const HEADINGS: Readonly<Record<string, string>> = {
  server: 'Server',
  students: 'Students (REST)',
  versioning: 'API versions',
  addresses: 'Addresses (REST)',
  albums: 'Albums (GraphQL)',
  events: 'Events (change feed)',
  webhooks: 'Webhooks',
  store: 'Store',
  security: 'Security and operations',
  connections: 'Connections and timeouts',
  collections: 'Your own collections (REST)'
}

function heading (group: string): string {
  return HEADINGS[group] ?? `${group.charAt(0).toUpperCase()}${group.slice(1)}`
}

/**
 * The options of a command under their headings: those of no group (the
 * command's own, and --help) under `Options:`, then each group in the order
 * its options come, one column width for all so the whole help lines up.
 */
function optionSections (options: readonly DeclaredOption[]): string[] {
  const ungrouped: Array<[string, string]> = []
  const groups = new Map<string, Array<[string, string]>>()
  for (const o of options) {
    if (o.group === undefined) { ungrouped.push(optionRow(o)); continue }
    const rows = groups.get(o.group) ?? []
    rows.push(optionRow(o))
    groups.set(o.group, rows)
  }
  ungrouped.push(['-h, --help', 'show this help'])
  const left = nameColumn([...ungrouped, ...[...groups.values()].flat()])
  const lines = ['Options:', ...columns(ungrouped, left)]
  for (const [group, rows] of groups) lines.push('', `${heading(group)}:`, ...columns(rows, left))
  return lines
}

/** `rqs <command> --help`. */
export function commandHelp (command: CliCommand): string {
  return [
    `Usage: ${command.usage}`,
    ...(command.description === undefined ? [] : ['', ...wrap(command.description, WIDTH)]),
    '',
    ...optionSections(command.options),
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
