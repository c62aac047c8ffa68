import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Script } from 'node:vm'

/** A CommonJS file run through V8's code cache: what it exports, and how to keep its compiled code for the next start. */
export interface CachedModule {
  exports: Record<string, unknown>
  /** The file it would read the cache from; the name holds the source's hash, so another build never reads it. */
  cacheFile: string
  /** Whether the cache was there and V8 accepted it (then nothing needs writing). */
  cacheUsed: boolean
  /**
   * Writes the code compiled so far (what the start ran, not only the top
   * level) for the next start, if the cache was missing or rejected. A
   * directory that cannot be written just means no cache.
   */
  saveCache: () => void
}

/** Node's own CommonJS wrapper, on the first line so line numbers stay those of the file. */
const wrap = (source: string): string => `(function (exports, require, module, __filename, __dirname) { ${source}\n})`

/**
 * Runs a CommonJS file (the bundled executable) as Node's loader would, but
 * compiled by `vm.Script` with the V8 code cache kept beside it: Node 20
 * keeps no code cache for modules, and compiling the bundle was the largest
 * single cost of a start. V8 checks the cache against the source and its own
 * version and flags, and refuses it otherwise (`cachedDataRejected`); the
 * cache's name also carries a hash of the source, Node's version and the
 * architecture, so a rebuilt bundle never even reads an old one.
 */
export function runWithCodeCache (fileOrUrl: string | URL): CachedModule {
  const file = typeof fileOrUrl === 'string' ? fileOrUrl : fileURLToPath(fileOrUrl)
  const source = readFileSync(file, 'utf8')
  const key = createHash('sha256').update(source).update(`\0${process.version}\0${process.arch}`).digest('hex').slice(0, 16)
  const prefix = `${basename(file)}.`
  const cacheFile = join(dirname(file), `${prefix}${key}.v8cache`)
  let cachedData: Buffer | undefined
  try { cachedData = readFileSync(cacheFile) } catch { /* none yet */ }
  const script = new Script(wrap(source), { filename: file, cachedData })
  const cacheUsed = cachedData !== undefined && !script.cachedDataRejected
  const loaded = { exports: {} as Record<string, unknown> }
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: unknown, filename: string, dirname: string) => void
  run.call(loaded.exports, loaded.exports, createRequire(file), loaded, file, dirname(file))
  let saved = cacheUsed
  const saveCache = (): void => {
    if (saved) return
    saved = true
    try {
      // Written whole under another name, then renamed: a start reading it never sees half a cache.
      const partial = `${cacheFile}.${process.pid}.tmp`
      writeFileSync(partial, script.createCachedData())
      renameSync(partial, cacheFile)
      // The caches of earlier builds of this file are of no use any more.
      for (const name of readdirSync(dirname(file))) {
        if (name.startsWith(prefix) && name.endsWith('.v8cache') && name !== basename(cacheFile)) rmSync(join(dirname(file), name), { force: true })
      }
    } catch { /* a read-only directory: no cache */ }
  }
  return { exports: loaded.exports, cacheFile, cacheUsed, saveCache }
}
