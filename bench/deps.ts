/**
 * The benchmark's own dependencies (bench/package.json: Express, Apollo
 * Server, GraphQL Yoga, postgres.js, autocannon and their types) are not
 * rqs's: a plain `npm ci` leaves them out. This installs them into
 * bench/node_modules with `npm ci` the first time a bench script (or the
 * type check of bench/) needs them, and again whenever bench/package.json or
 * bench/package-lock.json changed since; otherwise it returns at once.
 *
 *   tsx bench/deps.ts            # what `npm run bench`, `bench:profile`, `bench:drivers` and `typecheck` run first
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url))
/** Written after a successful install: the hash of the manifest and lockfile it installed. */
const STAMP = join(BENCH_DIR, 'node_modules', '.rqs-bench-installed')

const wanted = createHash('sha256')
  .update(readFileSync(join(BENCH_DIR, 'package.json')))
  .update(readFileSync(join(BENCH_DIR, 'package-lock.json')))
  .digest('hex')

if (!existsSync(STAMP) || readFileSync(STAMP, 'utf8').trim() !== wanted) {
  process.stderr.write('installing the benchmark\'s own dependencies into bench/node_modules (npm ci, bench/package-lock.json)\n')
  // The npm that runs this script (npm run sets npm_execpath), else the one on PATH.
  const npmCli = process.env.npm_execpath
  const [command, args] = npmCli !== undefined && /\.[cm]?js$/.test(npmCli)
    ? [process.execPath, [npmCli]]
    : ['npm', []]
  const result = spawnSync(command, [...args, 'ci', '--prefix', BENCH_DIR, '--no-audit', '--no-fund'], { cwd: BENCH_DIR, stdio: 'inherit' })
  if (result.status !== 0) {
    process.stderr.write(`npm ci in bench/ failed (${result.error?.message ?? `exit ${String(result.status)}`})\n`)
    process.exit(1)
  }
  writeFileSync(STAMP, wanted + '\n')
}
