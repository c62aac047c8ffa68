/**
 * Build step of the album query service (run by `npm run build`, hence by `npm ci`):
 *  1. bundles GraphiQL (React 19, Monaco) from web/graphiql/ with esbuild into
 *     dist/graphiql/: graphiql.js + graphiql.css, and the three Monaco web
 *     workers as separate files, so /graphiql needs nothing but this server;
 *  2. writes .br and .gz copies of the scripts and styles (about 5 MB of
 *     Monaco and React shrink to about a fifth), which @fastify/static serves
 *     to clients that accept them (preCompressed);
 *  3. copies the SDL next to the compiled service (dist/services/albums/),
 *     where schema.ts reads it from.
 */
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { brotliCompress, constants as zlib, gzip } from 'node:zlib'
import { build, type BuildOptions } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const outdir = `${root}dist/graphiql`
const started = performance.now()

const common: BuildOptions = {
  absWorkingDir: root,
  bundle: true,
  minify: true,
  target: 'es2022',
  platform: 'browser',
  legalComments: 'linked',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning'
}

await rm(outdir, { recursive: true, force: true })
await Promise.all([
  build({
    ...common,
    entryPoints: { graphiql: 'web/graphiql/main.tsx' },
    outdir,
    format: 'esm',
    jsx: 'automatic',
    // Monaco's CSS names its icon font; it ships as a file beside the bundle.
    loader: { '.ttf': 'file' },
    assetNames: '[name]-[hash]'
  }),
  // Workers are classic scripts (every browser can start them), one file each.
  build({
    ...common,
    entryPoints: {
      'editor.worker': 'monaco-editor/esm/vs/editor/editor.worker.js',
      'json.worker': 'monaco-editor/esm/vs/language/json/json.worker.js',
      'graphql.worker': 'monaco-graphql/esm/graphql.worker.js'
    },
    outdir,
    format: 'iife'
  })
])

const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)
// Brotli quality 9 is within a few per cent of 11 at a fraction of the build time.
await Promise.all((await readdir(outdir)).filter((name) => /\.(js|css)$/.test(name)).map(async (name) => {
  const content = await readFile(`${outdir}/${name}`)
  await writeFile(`${outdir}/${name}.br`, await brotli(content, { params: { [zlib.BROTLI_PARAM_QUALITY]: 9, [zlib.BROTLI_PARAM_SIZE_HINT]: content.length } }))
  await writeFile(`${outdir}/${name}.gz`, await gzipped(content, { level: 9 }))
}))

await mkdir(`${root}dist/services/albums`, { recursive: true })
await copyFile(`${root}src/services/albums/schema.graphql`, `${root}dist/services/albums/schema.graphql`)

process.stdout.write(`GraphiQL bundle built in ${((performance.now() - started) / 1000).toFixed(1)} s → dist/graphiql/\n`)
