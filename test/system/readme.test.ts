import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fileURLToPath } from 'node:url'
import { startServer, type RunningServer } from '../helpers/server.js'
import { fromFile } from '../../src/services/collections/config.js'

/**
 * The README's curl examples, run as printed, top to bottom, against one
 * fresh server (its origin put in place of localhost:8080), and their outputs
 * compared with the ones the README shows:
 * - `# …` lines right under a command (no blank line between) are lines of
 *   its output, in order; others may come between them (so volatile headers
 *   are simply not shown), and `<etag>`-style placeholders match anything;
 * - a ```json block right after a ```sh block is the last command's body,
 *   compared as JSON (a "<placeholder>" string matches any value).
 * Blocks with anything but curl commands and variable assignments (npm,
 * `rqs serve`, several instances) are not run.
 */

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const README_ORIGIN = 'localhost:8080'
const hasCurl = existsSync('/usr/bin/curl')
const run = promisify(execFile)

interface Command {
  text: string
  expected: string[]
}

interface Block {
  line: number
  commands: Command[]
  runnable: boolean
  /** The pretty-printed JSON answer of the last command, when the README shows one. */
  json?: string
}

function parseBlocks (markdown: string): Block[] {
  const blocks: Block[] = []
  const fence = /^```(\w*)\n([\s\S]*?)^```\n/gm
  let match: RegExpExecArray | null
  let last: { block: Block, end: number } | undefined
  while ((match = fence.exec(markdown)) !== null) {
    const [whole, lang, body] = match as unknown as [string, string, string]
    const line = markdown.slice(0, match.index).split('\n').length
    if (lang === 'json' && last !== undefined && markdown.slice(last.end, match.index).trim() === '') {
      last.block.json = body
      continue
    }
    if (lang !== 'sh') continue
    const block = parseCommands(body, line)
    blocks.push(block)
    last = { block, end: match.index + whole.length }
  }
  return blocks
}

function parseCommands (body: string, line: number): Block {
  const commands: Command[] = []
  let runnable = true
  let current: Command | undefined
  let continuing = false
  for (const raw of body.split('\n')) {
    if (continuing && current !== undefined) {
      current.text += `\n${raw}`
      continuing = raw.endsWith('\\')
      continue
    }
    if (raw.trim() === '') { current = undefined; continue }
    if (raw.startsWith('#')) {
      // Right under a command: a line of its output. Elsewhere: a remark.
      if (current !== undefined) current.expected.push(raw.replace(/^# ?/, ''))
      continue
    }
    current = { text: raw, expected: [] }
    commands.push(current)
    continuing = raw.endsWith('\\')
    if (!/^(curl |[A-Z_]+=)/.test(raw)) runnable = false
  }
  return { line, commands, runnable }
}

/** An expected line as a pattern: `<placeholder>` (no slash inside) matches any text. */
function linePattern (expected: string): RegExp {
  const parts = expected.split(/(<[A-Za-z][^<>/]*>)/)
  return new RegExp(`^${parts.map((p, i) => i % 2 === 1 ? '.+?' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('')}$`)
}

/** True when `actual` has the expected lines in this order (others may come between). */
function showsLines (actual: string[], expected: string[]): boolean {
  let at = 0
  for (const line of expected) {
    const pattern = linePattern(line.trim())
    while (at < actual.length && !pattern.test((actual[at] as string).trim())) at++
    if (at === actual.length) return false
    at++
  }
  return true
}

function matchesJson (actual: unknown, expected: unknown): boolean {
  if (typeof expected === 'string' && /^<[^<>/]+>$/.test(expected)) return true
  if (Array.isArray(expected)) return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => matchesJson(actual[i], e))
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false
    const keys = Object.keys(expected)
    return keys.length === Object.keys(actual).length && keys.every((k) => matchesJson((actual as Record<string, unknown>)[k], (expected as Record<string, unknown>)[k]))
  }
  return actual === expected
}

let server: RunningServer
const blocks = parseBlocks(README)

// The default configuration, plus the example collections the README's "Your own collections" shows.
beforeAll(async () => { server = await startServer({ collections: fromFile(fileURLToPath(new URL('../../examples/books.json', import.meta.url)), '--collections') }) })
afterAll(async () => { await server.close() })

describe.skipIf(!hasCurl)('README examples, run as printed on a fresh server', () => {
  it('finds the examples', () => {
    expect(blocks.filter((b) => b.runnable).length).toBeGreaterThanOrEqual(6)
    expect(blocks.flatMap((b) => b.commands).filter((c) => c.expected.length > 0).length).toBeGreaterThanOrEqual(10)
  })

  it('every curl block gives the outputs the README shows, top to bottom', async () => {
    const here = server.origin.replace('http://', '')
    const failures: string[] = []
    for (const block of blocks.filter((b) => b.runnable)) {
      // One shell per block, so its variables (B=…, ETAG=$(…)) carry from command to command.
      const script = block.commands.map((c, i) => `printf '\\n@@${i}@@\\n'\n${c.text.replaceAll(README_ORIGIN, here).replaceAll('127.0.0.1:8080', here)}`).join('\n')
      const { stdout } = await run('bash', ['-c', script], { timeout: 30_000, maxBuffer: 10_000_000 })
      const outputs = stdout.replaceAll('\r', '').replaceAll(here, README_ORIGIN).split(/\n@@\d+@@\n/).slice(1)
      block.commands.forEach((command, i) => {
        const actual = (outputs[i] ?? '').split('\n')
        if (command.expected.length > 0 && !showsLines(actual, command.expected)) {
          failures.push(`README line ${block.line}: ${command.text}\n  shows:\n    ${command.expected.join('\n    ')}\n  printed:\n    ${actual.join('\n    ')}`)
        }
      })
      if (block.json !== undefined) {
        const printed = outputs[outputs.length - 1] ?? ''
        let body: unknown
        try { body = JSON.parse(printed) } catch { body = printed }
        if (!matchesJson(body, JSON.parse(block.json))) failures.push(`README line ${block.line}: the JSON shown differs from\n    ${printed}`)
      }
    }
    expect(failures.join('\n\n')).toBe('')
  })
})

describe('the README test itself', () => {
  it('reads outputs under commands, placeholders and continued lines', () => {
    const [block] = parseBlocks('```sh\nA=1\n# remark\ncurl -s x \\\n  -d y\n# HTTP/1.1 200 OK\n# etag: <etag>\n\n# another remark\ncurl z\n```\n```json\n{"a":"<id>"}\n```\n')
    expect(block?.runnable).toBe(true)
    expect(block?.commands.map((c) => c.text)).toEqual(['A=1', 'curl -s x \\\n  -d y', 'curl z'])
    expect(block?.commands[1]?.expected).toEqual(['HTTP/1.1 200 OK', 'etag: <etag>'])
    expect(block?.json).toBe('{"a":"<id>"}\n')
    expect(showsLines(['HTTP/1.1 200 OK', 'date: now', 'etag: "abc"'], ['HTTP/1.1 200 OK', 'etag: <etag>'])).toBe(true)
    expect(showsLines(['etag: "abc"', 'HTTP/1.1 200 OK'], ['HTTP/1.1 200 OK', 'etag: <etag>'])).toBe(false)
    expect(linePattern('link: </a?b=1>; rel="next"').test('link: </a?b=1>; rel="next"')).toBe(true)
    expect(matchesJson({ a: 5 }, { a: '<id>' })).toBe(true)
    expect(matchesJson({ a: 5, b: 1 }, { a: '<id>' })).toBe(false)
    expect(parseBlocks('```sh\nnpm ci && npm start\n```\n')[0]?.runnable).toBe(false)
  })
})
