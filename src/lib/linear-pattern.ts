import { RE2JS } from 're2js'

/**
 * Declared `pattern`s run on RE2 (re2js, a pure JavaScript port), whose
 * matching time is linear in the text: `^(a+)+$` against 30 `a`s and a `!`
 * takes microseconds instead of the seconds a backtracking engine spends on
 * the event loop (issue 36, item 4). What RE2 cannot run (backreferences,
 * lookaround) is refused at declaration, and so is a pattern whose compiled
 * program is so large that building its automaton alone would hold the loop.
 */

/**
 * The largest RE2 program a declared pattern may compile to. Measured with
 * re2js 2.10 on a value of 100 000 characters (the most a field may hold):
 * programs up to ~700 instructions check in ≤ 45 ms even cold, one of ~2 100
 * (`^(?:\w{1,20}\s?){1,50}$`) takes 360–560 ms. Ordinary patterns (an ISBN,
 * a postal code, an e-mail shape) stay below 100.
 */
export const MAX_PATTERN_PROGRAM = 500

/** A pattern as ajv and rqs test it: `test` searches the text, like RegExp.prototype.test. */
export interface LinearPattern {
  test: (text: string) => boolean
  toString: () => string
}

/** Why a pattern cannot be declared, in words for the declaration's author. */
export class PatternRefusal extends Error {}

/**
 * The pattern compiled for RE2, or a PatternRefusal saying why not. JavaScript
 * spellings RE2 writes otherwise (`\u00e9`, `(?<name>…)`) are translated first.
 */
export function linearPattern (source: string): LinearPattern {
  let compiled: RE2JS
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(source))
  } catch (err) {
    const reason = (err as Error).message.replace(/^error parsing regexp: /, '')
    throw new PatternRefusal(`cannot be checked in linear time (${reason}): rqs checks patterns with RE2, which has no backreferences (\\1) or lookaround ((?=…), (?!…), (?<=…), (?<!…)); rewrite it without them`)
  }
  const size = compiled.programSize()
  if (size > MAX_PATTERN_PROGRAM) {
    throw new PatternRefusal(`is too large to check quickly (${size} RE2 instructions, at most ${MAX_PATTERN_PROGRAM}): use smaller counted repetitions ({1,20} rather than {1,500}) or check the length with minLength/maxLength`)
  }
  const shown = `/${source}/`
  return { test: (text) => compiled.test(text), toString: () => shown }
}

/**
 * An ajv `code.regExp` engine: rqs's own patterns (known, checked by tests)
 * keep the native engine, every other pattern runs on RE2. ajv caches
 * compiled patterns by their `toString`, so each pattern shows its source.
 */
export function linearRegExpEngine (trusted: readonly string[]): ((pattern: string, flags: string) => LinearPattern | RegExp) & { code: string } {
  const own = new Set(trusted)
  const engine = (pattern: string, flags: string): LinearPattern | RegExp => own.has(pattern) ? new RegExp(pattern, flags) : linearPattern(pattern)
  // ajv writes this into standalone code only, which rqs never generates.
  return Object.assign(engine, { code: 'linearPattern' })
}
