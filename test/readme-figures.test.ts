import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

/**
 * Figures the README states about what the build makes are what the build
 * makes: the web application's script and stylesheet, raw and compressed
 * (the `.gz` files the build writes beside them, and serves).
 */
const ROOT = join(import.meta.dirname, '..')
const APP = join(ROOT, 'dist/app')
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
const kib = (file: string): number => statSync(file).size / 1024

describe.skipIf(!existsSync(join(APP, 'manifest.json')))('the README\'s figures (needs the built app: npm run build)', () => {
  it('states the web application\'s script and stylesheet sizes as built, to the figure it gives', () => {
    const stated = /one script of (\d+(?:\.\d)?) KiB \((\d+(?:\.\d)?) KiB gzip\), a\s+stylesheet of (\d+(?:\.\d)?) KiB \((\d+(?:\.\d)?) KiB gzip\)/.exec(README)
    expect(stated, 'the README names the bundle\'s sizes').not.toBeNull()
    const { script } = JSON.parse(readFileSync(join(APP, 'manifest.json'), 'utf8')) as { script: string }
    const actual = [kib(join(APP, script)), kib(join(APP, `${script}.gz`)), kib(join(APP, 'rqs.css')), kib(join(APP, 'rqs.css.gz'))]
    actual.forEach((size, i) => {
      const figure = stated?.[i + 1] ?? ''
      // A figure is right when the size rounds to it, at the precision it is written in.
      const decimals = figure.includes('.') ? 1 : 0
      expect(size.toFixed(decimals), `figure ${i + 1} of the bundle's sizes (${size.toFixed(2)} KiB)`).toBe(Number(figure).toFixed(decimals))
    })
  })
})
