/**
 * Build step of the web application (run by `npm run build`, hence by `npm ci`):
 *  1. bundles web/app/ (TypeScript + Preact) with esbuild into dist/app/app-<hash>.js;
 *     the hash in the name lets the server cache it for a year;
 *  2. minifies the shared stylesheet (src/http/html/rqs.css) and copies the
 *     favicon into dist/app/, under fixed names every HTML page links to;
 *  3. writes .br and .gz copies of scripts and styles (served by @fastify/static,
 *     preCompressed) and manifest.json naming the hashed script;
 *  4. prints the sizes (raw and gzip), so the bundle's weight stays visible.
 */
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { brotliCompress, constants as zlib, gzip } from 'node:zlib'
import { build } from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const outdir = `${root}dist/app`
const started = performance.now()

await rm(outdir, { recursive: true, force: true })
await mkdir(outdir, { recursive: true })

const [script] = await Promise.all([
  build({
    absWorkingDir: root,
    entryPoints: { app: 'web/app/main.tsx' },
    outdir,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'linked',
    metafile: true,
    logLevel: 'warning'
  }),
  build({
    absWorkingDir: root,
    entryPoints: { rqs: 'src/http/html/rqs.css' },
    outdir,
    bundle: true,
    minify: true,
    target: ['chrome110', 'firefox110', 'safari16'],
    logLevel: 'warning'
  }),
  copyFile(`${root}src/http/html/favicon.svg`, `${outdir}/favicon.svg`)
])

const scriptFile = Object.keys(script.metafile.outputs).map((path) => basename(path)).find((name) => /^app-.+\.js$/.test(name))
if (scriptFile === undefined) throw new Error('esbuild wrote no app-<hash>.js')
await writeFile(`${outdir}/manifest.json`, JSON.stringify({ script: scriptFile }) + '\n')

const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)
const sizes: string[] = []
for (const name of [scriptFile, 'rqs.css']) {
  const content = await readFile(`${outdir}/${name}`)
  const gz = await gzipped(content, { level: 9 })
  await writeFile(`${outdir}/${name}.gz`, gz)
  await writeFile(`${outdir}/${name}.br`, await brotli(content, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: content.length } }))
  sizes.push(`${name} ${(content.length / 1024).toFixed(1)} KiB (gzip ${(gz.length / 1024).toFixed(1)} KiB)`)
}

process.stdout.write(`Web application built in ${((performance.now() - started) / 1000).toFixed(1)} s → dist/app/: ${sizes.join(', ')}\n`)
