/**
 * Build step of the executable (run by `npm run build` after tsc): bundles
 * the command line (src/bin.ts) with esbuild into dist/bundle/, and makes
 * dist/bin.js a two-line stub importing it, so `rqs serve` reads and compiles
 * a few files instead of ~650 modules (docs/decisions.md, "A bundled
 * executable"). What the start does not need (the GraphQL side, the OpenAPI
 * document, import/export, the SQL stores...) stays behind dynamic imports,
 * so esbuild's ESM splitting leaves it in chunks loaded on first use.
 *
 * The rest of dist/ stays as tsc wrote it (tests and the SQLite checkpoint
 * worker import it; the bundle's assets are found there): every
 * `import.meta.url` of a source file is rewritten to the URL its tsc output
 * has, so files found next to a module (public/, dist/app, the GraphQL SDL,
 * package.json) are found from the bundle too.
 *
 *   npx tsc -p tsconfig.build.json && npx tsx scripts/bundle.ts
 */
import { readFile, rm, writeFile } from 'node:fs/promises'
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

/** Rewrites `import.meta.url` in src/ to the URL of the module's tsc output in dist/, as seen from `outdir`. */
const metaUrlOfTscOutput = (outdir: string): Plugin => ({
  name: 'import-meta-url',
  setup (b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8')
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' }
      const compiled = relative(outdir, `${dist}/${relative(`${root}src`, args.path)}`).replace(/\\/g, '/').replace(/\.ts$/, '.js')
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(compiled)}, import.meta.url).href`), loader: 'ts' }
    })
  }
})

/**
 * Bundles src/bin.ts into dist/bundle/ and points dist/bin.js at it; given
 * another `outdir` (a test's, within the project so packages resolve), only
 * bundles there.
 */
export async function bundle (outdir = BUNDLE_DIR): Promise<void> {
  await rm(outdir, { recursive: true, force: true })
  await build({
    absWorkingDir: root,
    entryPoints: { rqs: 'src/bin.ts' },
    outdir,
    chunkNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // CommonJS packages bundled into ESM still call require() for Node's built-ins.
    banner: { js: "import { createRequire as __rqsCreateRequire } from 'node:module'; const require = __rqsCreateRequire(import.meta.url);" },
    external: EXTERNAL,
    plugins: [metaUrlOfTscOutput(outdir)],
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning'
  })
  if (outdir !== BUNDLE_DIR) return
  // The published `bin` stays dist/bin.js (`npm start`, `node dist/bin.js serve`).
  await writeFile(`${dist}/bin.js`, "#!/usr/bin/env node\n// The executable: the bundle scripts/bundle.ts built (src/bin.ts and what it imports).\nimport './bundle/rqs.js'\n")
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const started = performance.now()
  await bundle()
  const size = (await readFile(`${BUNDLE_DIR}/rqs.js`)).byteLength
  console.log(`dist/bundle/rqs.js: ${(size / 1024).toFixed(0)} KB in ${(performance.now() - started).toFixed(0)} ms`)
}
