/**
 * Build step of the executable (run by `npm run build` after tsc): bundles
 * the command line (src/executable.ts) with esbuild into one CommonJS file,
 * dist/bundle/rqs-<content hash>.cjs, and makes dist/bin.js its loader, which
 * compiles it through `vm.Script` with V8's code cache kept beside it
 * (src/lib/code-cache.ts), so `rqs serve` neither resolves ~650 modules nor
 * compiles 6 MB of JavaScript at each start (docs/decisions.md, "A bundled
 * executable" and "The executable's code cache"). What the start does not
 * need (the OpenAPI document, import/export, the SQL stores, Markdown...)
 * stays behind esbuild's lazily evaluated wrappers, run on first use; the
 * GraphQL packages stay external, required on first use. After bundling, one
 * start of the executable writes the cache, so the first real start has it.
 *
 * The rest of dist/ stays as tsc wrote it (tests and the SQLite checkpoint
 * worker import it; the bundle's assets are found there): every
 * `import.meta.url` of a source file is rewritten to the URL its tsc output
 * has, so files found next to a module (public/, dist/app, the GraphQL SDL,
 * package.json) are found from the bundle too.
 *
 *   npx tsc -p tsconfig.build.json && npx tsx scripts/bundle.ts
 */
import { spawn } from 'node:child_process'
import { isAscii } from 'node:buffer'
import { readdirSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build, type Plugin } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = `${root}dist`
const BUNDLE_DIR = `${dist}/bundle`

/**
 * Packages left to Node's own loader: native drivers (better-sqlite3, pg),
 * those that find files or start workers beside their own modules (pino's
 * transports, which rqs does not use, start thread-stream's worker; Swagger
 * UI serves its static files), and the lazy GraphQL side's
 * packages (one copy of graphql-js for every package that checks its classes).
 */
const EXTERNAL = [
  'better-sqlite3', 'pg', 'pg-*', 'pino-pretty', 'thread-stream',
  '@fastify/swagger', '@fastify/swagger-ui', 'ioredis',
  'graphql', 'graphql-*', '@graphql-*', 'dataloader'
]

/**
 * Rewrites `import.meta.url` in src/ to the URL of the module's tsc output in
 * dist/, found from the bundle's own file (CommonJS has no import.meta).
 */
const metaUrlOfTscOutput = (outdir: string): Plugin => ({
  name: 'import-meta-url',
  setup (b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8')
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' }
      const compiled = relative(outdir, `${dist}/${relative(`${root}src`, args.path)}`).replace(/\\/g, '/').replace(/\.ts$/, '.js')
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(compiled)}, require('node:url').pathToFileURL(__filename)).href`), loader: 'ts' }
    })
  }
})

/**
 * The text with every character beyond ASCII written as a \u escape (only
 * comments and a few regular expressions hold any): the executable then
 * reads the bundle as Latin-1, ≈ 30 ms less than decoding UTF-8.
 */
const ascii = (text: string): string => text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/**
 * Requires in packages that a start reaches but never calls before a request
 * needs them: each binding becomes a function that requires the module when
 * first called (or constructed) and then stands for it. `http-errors` (≈ 20
 * ms of a start on the loaded machine: its deprecation helper reads a stack
 * trace, and it makes a class per status code) is only called when
 * @fastify/send fails a file; `thread-stream` (left out of the bundle, so
 * read and compiled by Node's loader) only when pino starts a transport,
 * which rqs never asks for; glob and minipass (with their own dependencies)
 * only on paths rqs does not take at start. A package whose text no longer has the require
 * fails the build, so an update that moves it is noticed.
 */
const DEFERRED_REQUIRES: ReadonlyArray<{ file: string, binding: string, module: string, named?: true }> = [
  { file: '@fastify/send/lib/createHttpError.js', binding: 'createError', module: 'http-errors' },
  { file: 'pino/lib/transport.js', binding: 'ThreadStream', module: 'thread-stream' },
  // Only for @fastify/static's `wildcard: false` (rqs serves its folders with `wildcard: true`).
  { file: '@fastify/static/index.js', binding: 'glob', module: 'glob', named: true },
  // Only when @fastify/compress inflates a request body.
  { file: '@fastify/compress/index.js', binding: 'Minipass', module: 'minipass', named: true }
]

/**
 * `source` with the require of `module` bound to `binding` made on first call
 * or construction (`named`: the binding is the module's export of that name).
 * Throws when the source has no such require.
 */
export function deferRequire (source: string, { binding, module, named }: { binding: string, module: string, named?: true }): string {
  const eager = named === true ? `const { ${binding} } = require('${module}')` : `const ${binding} = require('${module}')`
  if (!source.includes(eager)) throw new Error(`no \`${eager}\` to defer: see DEFERRED_REQUIRES in scripts/bundle.ts`)
  const loaded = named === true ? `require('${module}').${binding}` : `require('${module}')`
  return source.replace(eager, `let ${binding} = function (...args) { ${binding} = ${loaded}; return new.target === undefined ? ${binding}(...args) : new ${binding}(...args) }`)
}

const deferredRequires = (): Plugin => ({
  name: 'deferred-requires',
  setup (b) {
    for (const entry of DEFERRED_REQUIRES) {
      const filter = new RegExp(`[\\\\/]node_modules[\\\\/]${entry.file.replace(/[.]/g, '\\.').replace(/\//g, '[\\\\/]')}$`)
      b.onLoad({ filter }, async (args) => ({ contents: deferRequire(await readFile(args.path, 'utf8'), entry), loader: 'js' }))
    }
  }
})

/** The executable's loader: runs the bundle `bundlePath` (relative to itself) through V8's code cache. */
const loaderSource = (bundlePath: string): string => `
import { runWithCodeCache } from './src/lib/code-cache.ts'
const bundle = runWithCodeCache(new URL(${JSON.stringify(bundlePath)}, import.meta.url), { ascii: true })
bundle.exports.runExecutable(process.argv.slice(2), process.env, bundle.saveCache)
`

/**
 * Bundles the command line (src/executable.ts and what it imports) into
 * `outdir`/rqs-<content hash>.cjs and writes its loader, dist/bin.js (or, given another
 * `outdir`, a test's within the project so packages resolve, `outdir`/bin.js).
 * CommonJS, in one file: V8 keeps a code cache for a script compiled by
 * `vm.Script`, not for an ES module (Node 20). What the start does not need
 * stays behind esbuild's lazily evaluated wrappers, run on first use.
 */
export async function bundle (outdir = BUNDLE_DIR): Promise<string> {
  await rm(outdir, { recursive: true, force: true })
  const built = await build({
    absWorkingDir: root,
    entryPoints: ['src/executable.ts'],
    outfile: `${outdir}/rqs.cjs`,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    // Every import() becomes a require() run when reached: the bundle runs as a script, with no module loader behind it.
    supported: { 'dynamic-import': false },
    external: EXTERNAL,
    plugins: [metaUrlOfTscOutput(outdir), deferredRequires()],
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    write: false
  })
  const js = built.outputFiles.find((f) => f.path.endsWith('.cjs'))
  const map = built.outputFiles.find((f) => f.path.endsWith('.map'))
  if (js === undefined || map === undefined) throw new Error('esbuild wrote no bundle')
  // Named by its content, so that its code cache (named after it) is never another build's.
  const source = ascii(js.text).replace(/\/\/# sourceMappingURL=rqs\.cjs\.map\s*$/, '')
  // The executable reads it as Latin-1 without checking (src/lib/code-cache.ts): checked here.
  if (!isAscii(Buffer.from(source))) throw new Error('the bundle is not ASCII')
  const name = `rqs-${createHash('sha256').update(source).digest('hex').slice(0, 12)}.cjs`
  await mkdir(outdir, { recursive: true })
  await writeFile(`${outdir}/${name}`, `${source}//# sourceMappingURL=${name}.map\n`)
  await writeFile(`${outdir}/${name}.map`, map.contents)
  const main = outdir === BUNDLE_DIR
  await build({
    absWorkingDir: root,
    stdin: { contents: loaderSource(main ? `./bundle/${name}` : `./${name}`), resolveDir: root, loader: 'ts', sourcefile: 'bin.ts' },
    outfile: main ? `${dist}/bin.js` : `${outdir}/bin.js`,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // The published `bin` stays dist/bin.js (`npm start`, `node dist/bin.js serve`).
    banner: { js: '#!/usr/bin/env node\n// The executable: runs the bundle of the command line (dist/bundle/rqs-<hash>.cjs) through V8\'s code cache.' },
    legalComments: 'none',
    logLevel: 'warning'
  })
  return `${outdir}/${name}`
}

/**
 * Starts the built executable once, so the first real start finds the code
 * cache made: `rqs serve` on a free port with the default services, stopped
 * once it has written the cache. A start that fails only leaves no cache.
 */
export async function warmStart (outdir = BUNDLE_DIR, bin = `${dist}/bin.js`): Promise<boolean> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('RQS_') && k !== 'DATABASE_URL' && k !== 'LOG_LEVEL'))
  const child = spawn(process.execPath, [bin, 'serve', '--host', '127.0.0.1', '--port', '0', '--log-level', 'warn', '--log-format', 'json'], { cwd: tmpdir(), env, stdio: 'ignore' })
  const cached = (): boolean => readdirSync(outdir).some((name) => name.endsWith('.v8cache'))
  const deadline = performance.now() + 30_000
  while (!cached() && child.exitCode === null && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  return cached()
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now()
  const file = await bundle()
  const size = (await readFile(file)).byteLength
  const warm = await warmStart()
  console.log(`${relative(root, file)}: ${(size / 1024).toFixed(0)} KB in ${(performance.now() - started).toFixed(0)} ms; code cache ${warm ? 'made' : 'NOT made (the first start makes it)'}`)
}
