import { runInThisContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { deferRequire } from '../../scripts/bundle.js'

/**
 * The bundle's deferred requires (scripts/bundle.ts): a package's binding
 * that a start reaches but does not call requires its module on the first
 * call or construction, then stands for the module itself.
 */
type Run = (require: (id: string) => unknown) => Record<string, unknown>

function load (source: string): { exports: Record<string, unknown>, required: string[] } {
  const required: string[] = []
  const modules: Record<string, unknown> = {
    greet: (name: string) => `hello ${name}`,
    shapes: { Box: class Box { constructor (readonly side: number) {} } }
  }
  const run = runInThisContext(`(function (require) { 'use strict'; const exports = {}; ${source}; return exports })`) as Run
  const exports = run((id) => { required.push(id); return modules[id] })
  return { exports, required }
}

describe('deferRequire', () => {
  it('requires the module on the first call, once, and calls it', () => {
    const { exports, required } = load(deferRequire("const greet = require('greet')\nexports.hi = (n) => greet(n)", { binding: 'greet', module: 'greet' }))
    expect(required).toEqual([])
    expect((exports.hi as (n: string) => string)('Ada')).toBe('hello Ada')
    expect((exports.hi as (n: string) => string)('Bo')).toBe('hello Bo')
    expect(required).toEqual(['greet'])
  })

  it('constructs a named export on first use', () => {
    const { exports, required } = load(deferRequire("const { Box } = require('shapes')\nexports.make = (s) => new Box(s)", { binding: 'Box', module: 'shapes', named: true }))
    expect(required).toEqual([])
    const box = (exports.make as (s: number) => { side: number, constructor: { name: string } })(3)
    expect(box.side).toBe(3)
    expect(box.constructor.name).toBe('Box')
    expect(required).toEqual(['shapes'])
  })

  it('refuses a source without the require (a package that changed)', () => {
    expect(() => deferRequire("const greet = require('other')", { binding: 'greet', module: 'greet' })).toThrow(/no `const greet = require\('greet'\)` to defer/)
  })
})
