import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { bundle, warmStart } from '../../scripts/bundle.js'
import { ROOT } from './procs.js'

/**
 * dist/ from this tree, as `npm start` runs it: tsc, then the executable's
 * bundle (dist/bin.js starts it, scripts/bundle.ts) with the code cache its
 * build-time start writes, so no measured start is the one writing it. tsc
 * alone would leave an unbundled dist/bin.js behind: it runs, but starts
 * about twice as slowly, and every later `start` row would measure that.
 */
export async function buildDist (): Promise<void> {
  process.stderr.write('compiling src/ to dist/ (tsc -p tsconfig.build.json, then the bundle; --no-build skips this)\n')
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' })
  await bundle()
  await warmStart()
}

/** Says so when dist/bin.js is tsc's, not the bundle's loader (see buildDist). */
export function warnIfUnbundled (): void {
  const bin = join(ROOT, 'dist/bin.js')
  if (existsSync(bin) && !readFileSync(bin, 'utf8').includes('./bundle/')) {
    process.stderr.write('note: dist/bin.js is not the bundled executable (tsc alone wrote it): run `npm run build:bundle` for the start row\n')
  }
}
