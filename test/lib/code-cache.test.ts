import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Script } from 'node:vm'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { cacheFileOf, runWithCodeCache } from '../../src/lib/code-cache.js'

/**
 * The executable's loader: a CommonJS file run through vm.Script with a V8
 * code cache beside it, written when missing or refused, used when there.
 */
describe('runWithCodeCache', () => {
  let dir = ''
  let file = ''
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rqs-code-cache-'))
    file = join(dir, 'mod.cjs')
    writeFileSync(join(dir, 'helper.cjs'), 'module.exports = (n) => n * 2\n')
    // CommonJS as Node runs it: require beside the file, __filename, module.exports; a function only called later.
    writeFileSync(file, "const twice = require('./helper.cjs')\nexports.where = __filename\nexports.later = () => twice(21)\nexports.text = 'caf\\u00e9'\n")
  })
  afterEach(() => { rmSync(dir, { recursive: true, force: true }) })

  it('runs the file as Node would, without a cache the first time, then writes one', () => {
    const first = runWithCodeCache(file)
    expect(first.exports.where).toBe(file)
    expect((first.exports.later as () => number)()).toBe(42)
    expect(first.cacheUsed).toBe(false)
    expect(existsSync(first.cacheFile)).toBe(false)
    first.saveCache()
    expect(first.cacheFile).toBe(cacheFileOf(file))
    expect(statSync(first.cacheFile).size).toBeGreaterThan(0)
  })

  it('uses the cache on the next run and leaves it as it is', () => {
    runWithCodeCache(file).saveCache()
    const written = statSync(cacheFileOf(file))
    const second = runWithCodeCache(new URL(`file://${file}`))
    expect(second.cacheUsed).toBe(true)
    expect((second.exports.later as () => number)()).toBe(42)
    second.saveCache()
    expect(statSync(cacheFileOf(file)).ino).toBe(written.ino)
  })

  it.each([
    ['corrupt', () => Buffer.from('not a V8 code cache at all, just some bytes')],
    ['of another script', () => new Script('exports.other = 1; function f () { return 2 }').createCachedData()]
  ])('ignores a cache that is %s, runs, and replaces it', (_, bad) => {
    writeFileSync(cacheFileOf(file), bad())
    const run = runWithCodeCache(file)
    expect(run.cacheUsed).toBe(false)
    expect((run.exports.later as () => number)()).toBe(42)
    run.saveCache()
    expect(runWithCodeCache(file).cacheUsed).toBe(true)
  })

  it('reads a file beyond ASCII as UTF-8, and an ASCII one alike', () => {
    writeFileSync(file, "exports.text = 'café ✓'\n")
    expect(runWithCodeCache(file).exports.text).toBe('café ✓')
    writeFileSync(file, "exports.text = 'caf\\u00e9'\n")
    expect(runWithCodeCache(file).exports.text).toBe('café')
  })

  it('reads a file the caller knows to be ASCII as Latin-1, unchecked', () => {
    writeFileSync(file, "exports.text = 'caf\\u00e9'\n")
    expect(runWithCodeCache(file, { ascii: true }).exports.text).toBe('café')
  })

  it('removes the caches other Node versions left for the file once it writes its own', () => {
    const stale = join(dir, 'mod.cjs.v0.0.0-x64.v8cache')
    const otherFile = join(dir, 'other.cjs.v0.0.0-x64.v8cache')
    writeFileSync(stale, 'old')
    writeFileSync(otherFile, 'old')
    runWithCodeCache(file).saveCache()
    expect(existsSync(stale)).toBe(false)
    expect(existsSync(otherFile)).toBe(true)
    expect(existsSync(cacheFileOf(file))).toBe(true)
  })

  it('runs on when the cache cannot be written', () => {
    // A directory where the cache would go: neither readable as a cache nor replaceable by one.
    mkdirSync(join(cacheFileOf(file), 'x'), { recursive: true })
    const run = runWithCodeCache(file)
    expect(run.cacheUsed).toBe(false)
    expect(() => { run.saveCache() }).not.toThrow()
    expect(statSync(cacheFileOf(file)).isDirectory()).toBe(true)
    // Nothing half-written is left behind.
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })
})
