import { isAscii } from 'node:buffer'
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Script } from 'node:vm'

/** A CommonJS file run through V8's code cache: what it exports, and how to keep its compiled code for the next start. */
export interface CachedModule {
  exports: Record<string, unknown>
  /** The file the cache is read from and written to. */
  cacheFile: string
  /** Whether a cache was there and V8 accepted it (then nothing needs writing). */
  cacheUsed: boolean
  /**
   * Writes the code compiled so far (what the start ran, not only the top
   * level) for the next start, if the cache was missing or rejected. A
   * directory that cannot be written just means no cache.
   */
  saveCache: () => void
}

const readAsciiOrUtf8 = (bytes: Buffer): string => bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8')

/** Node's own CommonJS wrapper, on the first line so line numbers stay those of the file. */
const wrap = (source: string): string => `(function (exports, require, module, __filename, __dirname) { ${source}\n})`

/**
 * The cache of `file` for this Node: V8 refuses a cache of another V8 version
 * or other flags itself, and of a source of another length; the bundle's own
 * name carries a hash of its content, so a rebuilt bundle never reads the
 * cache of an earlier one.
 */
export const cacheFileOf = (file: string): string => join(dirname(file), `${basename(file)}.${process.version}-${process.arch}.v8cache`)

/**
 * Runs a CommonJS file (the bundled executable) as Node's loader would, but
 * compiled by `vm.Script` with a V8 code cache kept beside it: Node 20 keeps
 * no code cache for modules, and compiling the bundle was the largest single
 * cost of a start.
 */
export function runWithCodeCache (fileOrUrl: string | URL, { ascii = false }: { ascii?: boolean } = {}): CachedModule {
  const file = typeof fileOrUrl === 'string' ? fileOrUrl : fileURLToPath(fileOrUrl)
  // Decoding 6 MB as UTF-8 costs ≈ 30 ms; an ASCII file (the bundle is written so) Latin-1 reads as is.
  // Checking that it is ASCII costs ≈ 10 ms of a start more: skipped when the caller knows (the build checked it).
  const source = ascii ? readFileSync(file, 'latin1') : readAsciiOrUtf8(readFileSync(file))
  const cacheFile = cacheFileOf(file)
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
    // Written whole under another name, then renamed: a start reading it never sees half a cache.
    const partial = `${cacheFile}.${process.pid}.tmp`
    try {
      writeFileSync(partial, script.createCachedData())
      renameSync(partial, cacheFile)
    } catch {
      rmSync(partial, { force: true })
      return // a read-only directory: no cache
    }
    // This file's caches for other versions of Node are of no use any more.
    const prefix = `${basename(file)}.`
    for (const name of readdirSync(dirname(file))) {
      if (name.startsWith(prefix) && name.endsWith('.v8cache') && name !== basename(cacheFile)) rmSync(join(dirname(file), name), { force: true })
    }
  }
  return { exports: loaded.exports, cacheFile, cacheUsed, saveCache }
}
