import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { createVitest } from 'vitest/node'
import { LANES } from '../vitest.config.js'

/**
 * The test lanes of vitest.config.ts, asked of Vitest itself: every test
 * file belongs to exactly one, and a file needing a process, a browser or
 * PostgreSQL is in a lane that expects it, so `npm run test:fast` never
 * needs one.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url))

const SELF = 'test/lanes.test.ts'

const testFiles = (readdirSync(join(ROOT, 'test'), { recursive: true }) as string[])
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file.split('\\').join('/')}`)
  .sort()

/** Each file's lanes, by the projects whose globs match it. */
async function lanesOfFiles (): Promise<Map<string, string[]>> {
  const vitest = await createVitest('test', { watch: false, config: join(ROOT, 'vitest.config.ts'), root: ROOT })
  try {
    return new Map(testFiles.map((file) => [file, vitest.projects.filter((p) => p.matchesTestGlob(join(ROOT, file))).map((p) => p.name)]))
  } finally {
    await vitest.close()
  }
}

/** What a file's imports say it needs, and the lanes allowed to need it. */
const NEEDS: Array<{ what: string, uses: RegExp, lanes: string[] }> = [
  { what: 'child processes', uses: /from '(?:node:)?child_process'|helpers\/process\.js'/, lanes: ['system'] },
  { what: 'a browser', uses: /from 'playwright-core'|from '\.\/browser\.js'/, lanes: ['browser'] },
  { what: 'PostgreSQL', uses: /\b(?:createTestDatabase|openPostgresStores)\b|storeKinds\([^)]*'postgres'/, lanes: ['postgres', 'system', 'fuzz'] }
]

describe('test lanes', () => {
  let lanes: Map<string, string[]>
  beforeAll(async () => { lanes = await lanesOfFiles() }, 60_000)

  it('put every test file in exactly one lane', () => {
    expect(testFiles.length).toBeGreaterThan(50)
    const misplaced = [...lanes].filter(([, names]) => names.length !== 1).map(([file, names]) => `${file}: ${names.length === 0 ? 'no lane' : names.join(' and ')}`)
    expect(misplaced).toEqual([])
  })

  it('name only files that exist', () => {
    const missing = Object.values(LANES).flat().filter((path) => !/[*?{[]/.test(path) && !existsSync(join(ROOT, path)))
    expect(missing).toEqual([])
  })

  it('claim files by folder or suffix only, each lane some', () => {
    expect(Object.values(LANES).flat().filter((path) => !/[*?{[]/.test(path))).toEqual([])
    const empty = Object.keys(LANES).filter((name) => ![...lanes.values()].some((names) => names.includes(name)))
    expect(empty).toEqual([])
  })

  it('keep child processes, browsers and PostgreSQL in the lanes that expect them', () => {
    const wrong: string[] = []
    for (const file of testFiles.filter((f) => f !== SELF)) { // its own patterns would match
      const text = readFileSync(join(ROOT, file), 'utf8')
      const lane = lanes.get(file)?.[0] ?? 'none'
      for (const need of NEEDS) if (need.uses.test(text) && !need.lanes.includes(lane)) wrong.push(`${file} needs ${need.what} but is in the ${lane} lane`)
    }
    expect(wrong).toEqual([])
  })
})
