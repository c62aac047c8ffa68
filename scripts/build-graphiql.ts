/**
 * Build step of the album query service (run by `npm run build`, hence by `npm ci`):
 *  1. bundles GraphiQL (React 19, Monaco) from web/graphiql/ with esbuild into
 *     dist/graphiql/: graphiql.js + graphiql.css, and the three Monaco web
 *     workers as separate files, so /graphiql needs nothing but this server;
 *  2. copies the SDL next to the compiled service (dist/services/albums/),
 *     where schema.ts reads it from.
 */
import { copyFile, mkdir, rm } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
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

await mkdir(`${root}dist/services/albums`, { recursive: true })
await copyFile(`${root}src/services/albums/schema.graphql`, `${root}dist/services/albums/schema.graphql`)

process.stdout.write(`GraphiQL bundle built in ${((performance.now() - started) / 1000).toFixed(1)} s → dist/graphiql/\n`)
