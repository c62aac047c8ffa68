import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { COMMANDS } from '../../src/cli.js'
import { parseArguments } from '../../src/cli/command.js'
import { resolveConfig } from '../../src/options.js'

/*
 * The README's `rqs …` command lines name commands and options that exist,
 * with values the options accept: checked here in-process, without starting
 * anything, so a renamed option or command cannot leave a README line behind.
 */

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { bin?: Record<string, string> }

/** The lines of the README's shell blocks. */
function shellLines (markdown: string): string[] {
  const lines: string[] = []
  for (const [, body] of markdown.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```$/gm)) lines.push(...(body ?? '').split('\n'))
  return lines
}

/**
 * The words of one shell command as the shell splits them: quotes removed,
 * up to a comment, a redirection, a pipe or a trailing `&`.
 */
function words (line: string): string[] {
  const found: string[] = []
  let word: string | undefined
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1)
      word = (word ?? '') + line.slice(i + 1, end)
      i = end
    } else if (/\s/.test(c)) {
      if (word !== undefined) found.push(word)
      word = undefined
    } else if (word === undefined && /[#>|<&;]/.test(c)) {
      break
    } else {
      word = (word ?? '') + c
    }
  }
  if (word !== undefined) found.push(word)
  return found
}

interface RqsLine { line: string, env: Record<string, string>, args: string[] }

/** Every README command that runs rqs: its environment assignments and its arguments. */
function rqsLines (): RqsLine[] {
  const found: RqsLine[] = []
  for (const line of shellLines(README)) {
    const all = words(line)
    const env: Record<string, string> = {}
    while (/^[A-Z_][A-Z0-9_]*=/.test(all[0] ?? '')) {
      const [name, ...value] = (all.shift() as string).split('=')
      env[name as string] = value.join('=')
    }
    if (all[0] === 'rqs') found.push({ line, env, args: all.slice(1) })
  }
  return found
}

const LINES = rqsLines()
const serve = COMMANDS.find((c) => c.name === 'serve')

describe('the README\'s rqs command lines', () => {
  it('are found (serve, export and import among them)', () => {
    expect(LINES.length).toBeGreaterThanOrEqual(10)
    expect(new Set(LINES.map((l) => l.args[0]))).toEqual(new Set(['--help', '--version', 'serve', 'export', 'import']))
  })

  it.each(LINES.map((l) => [l.line.trim(), l] as const))('%s', (_, { env, args }) => {
    const [name, ...rest] = args
    if (name?.startsWith('-') === true) {
      expect(['--help', '-h', '--version', '-v']).toContain(name)
      return
    }
    const command = COMMANDS.find((c) => c.name === name)
    expect(command, `a command named ${name ?? '(none)'}`).toBeDefined()
    if (command === undefined) return
    if (command === serve) {
      // Every variable is one an option reads, every flag is declared, every value is accepted.
      const variables = serve.options.flatMap((o) => o.env === undefined ? [] : [o.env])
      for (const variable of Object.keys(env)) expect(variables).toContain(variable)
      const parsed = parseArguments(rest, serve.options, 'rqs serve --help')
      if (!parsed.help) expect(() => resolveConfig(parsed.flags, env)).not.toThrow()
      return
    }
    // The bulk commands read their own arguments: each option they are given is in their synopsis.
    for (const arg of rest.filter((a) => a.startsWith('-'))) {
      const flag = arg.split('=')[0] as string
      expect(command.usage, `${flag} of rqs ${command.name}`).toMatch(new RegExp(`(^|[\\s[])${flag}(?=[\\s\\]=]|$)`))
    }
  })

  it('are runnable as printed once the clone is linked, which the README says how to do', () => {
    expect(PACKAGE.bin).toEqual({ rqs: 'dist/bin.js' })
    expect(readFileSync(new URL('../../src/bin.ts', import.meta.url), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/)
    const section = /<!-- cli:start -->([\s\S]*?)<!-- cli:end -->/.exec(README)?.[1] ?? ''
    expect(section).toMatch(/^npm link\b/m)
    expect(section).toContain('node dist/bin.js')
  })
})
