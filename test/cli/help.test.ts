import { describe, expect, it } from 'vitest'
import { OPTIONS } from '../../src/options.js'
import { runMain } from '../helpers/cli.js'

/** The headings of `rqs serve --help`, in their order. */
const HEADINGS = [
  'Options:', 'Server:', 'Students (REST):', 'API versions:', 'Addresses (REST):', 'Your own collections (REST):', 'Albums (GraphQL):', 'Events (change feed):', 'Webhooks:',
  'Store:', 'Security and operations:', 'Connections and timeouts:'
]

/** The lines of the help, split at its headings: heading → the option lines under it. */
function sections (help: string): Map<string, string[]> {
  const found = new Map<string, string[]>()
  let current: string[] | undefined
  for (const line of help.split('\n')) {
    if (/^\S.*:$/.test(line)) { current = []; found.set(line, current); continue }
    if (line === '') current = undefined
    current?.push(line)
  }
  return found
}

describe('rqs serve --help: the options grouped by section', () => {
  it('has a heading per option group, in order, and exits 0', async () => {
    const { code, stdout } = await runMain(['serve', '--help'])
    expect(code).toBe(0)
    expect([...sections(stdout).keys()].filter((h) => h !== 'Usage: rqs serve [options]')).toEqual(HEADINGS)
  })

  it('lists every option once, under the heading of its group', async () => {
    const { stdout } = await runMain(['serve', '--help'])
    const byHeading = sections(stdout)
    const groupHeading: Record<string, string> = {
      server: 'Server:', students: 'Students (REST):', versioning: 'API versions:', addresses: 'Addresses (REST):', collections: 'Your own collections (REST):', albums: 'Albums (GraphQL):',
      events: 'Events (change feed):', webhooks: 'Webhooks:', store: 'Store:', security: 'Security and operations:', connections: 'Connections and timeouts:'
    }
    for (const o of OPTIONS) {
      const synopsis = new RegExp(`^ {2}(?:-\\w, | {4})--${o.flag}(?: |$)`)
      expect(stdout.split('\n').filter((line) => synopsis.test(line)), o.flag).toHaveLength(1)
      expect(o.group, o.flag).toBeDefined()
      expect(byHeading.get(groupHeading[o.group ?? ''] ?? '')?.some((line) => synopsis.test(line)), `${o.flag} under its heading`).toBe(true)
    }
    // The command's own options come first, with --help.
    expect(byHeading.get('Options:')?.filter((line) => /^ {2}-/.test(line)).map((line) => line.trim().split(/ {2,}/)[0])).toEqual(['-c, --config <file>', '-h, --help'])
  })

  it('lines the help up in one column and wraps it to 100 columns', async () => {
    const { stdout } = await runMain(['serve', '--help'])
    const lines = stdout.split('\n')
    expect(lines.filter((line) => line.length > 100)).toEqual([])
    // Every help text starts in the same column, whatever its section.
    const starts = new Set(lines.flatMap((line) => /^ {2}(?:-\w, | {4})--\S+(?: <[a-z]+>)? {2,}(?=\S)/.exec(line)?.[0].length ?? []))
    expect(starts.size).toBe(1)
  })

  it('says once what a duration and a size look like', async () => {
    const { stdout } = await runMain(['serve', '--help'])
    expect(stdout.replace(/\s+/g, ' ')).toContain('A <duration> is 500ms, 5s, 2m, 1h or 7d (a bare number is milliseconds)')
  })

  it('keeps a command without groups under Options:', async () => {
    const { code, stdout } = await runMain(['help', 'help'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^Options:\n {2}-h, --help +show this help\n$/m)
  })
})
