import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cruise, type IConfiguration, type IViolation } from 'dependency-cruiser'
import extractDepcruiseConfig from 'dependency-cruiser/config-utl/extract-depcruise-config'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

/**
 * The layers of src/ as .dependency-cruiser.cjs states them (`npm run lint`
 * runs the same check): no import cycle, type imports included, and no
 * folder importing one above it. A break names the rule and the path.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url))

let config: IConfiguration
beforeAll(async () => { config = await extractDepcruiseConfig(join(ROOT, '.dependency-cruiser.cjs')) })

/** The violations of the project's rules in the tree at `baseDir`. */
async function violations (baseDir: string): Promise<string[]> {
  const result = await cruise(['src'], { ...config.options, baseDir, ruleSet: { forbidden: config.forbidden }, validate: true })
  if (typeof result.output === 'string') throw new Error('dependency-cruiser answered with a report, not a result')
  return result.output.summary.violations.map(shown)
}

function shown (violation: IViolation): string {
  const path = violation.cycle === undefined ? [violation.from, violation.to] : [violation.from, ...violation.cycle.map((step) => step.name)]
  return `${violation.rule.name}: ${path.join(' → ')}`
}

describe('the layers of src/', () => {
  it('have no import cycle and no upward import', async () => {
    expect(await violations(ROOT)).toEqual([])
  }, 120_000)

  describe('the check', () => {
    let tree: string
    const write = (path: string, text: string): void => {
      mkdirSync(dirname(join(tree, path)), { recursive: true })
      writeFileSync(join(tree, path), text)
    }
    beforeAll(() => {
      tree = mkdtempSync(join(tmpdir(), 'rqs-layers-'))
      write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }))
      // The domain reaching up for a type only, and two stores importing each other.
      write('src/domain/store.ts', "import type { Config } from '../options.js'\nexport type Settings = Config\n")
      write('src/options.ts', 'export interface Config { port: number }\n')
      write('src/stores/a.ts', "import type { B } from './b.js'\nexport interface A { b?: B }\n")
      write('src/stores/b.ts', "import type { A } from './a.js'\nexport interface B { a?: A }\n")
      write('src/stores/index.ts', "export type { A } from './a.js'\n")
    })
    afterAll(() => { rmSync(tree, { recursive: true, force: true }) })

    it('names an upward import and a cycle of type imports, with their paths', async () => {
      const found = await violations(tree)
      expect(found).toContain('layer-domain: src/domain/store.ts → src/options.ts')
      expect(found).toContainEqual(expect.stringMatching(/^no-circular: src\/stores\/(a|b)\.ts → src\/stores\/(a|b)\.ts → src\/stores\/(a|b)\.ts$/))
    }, 120_000)
  })
})
