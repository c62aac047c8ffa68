import type { FilterExpr } from '../domain/index.js'
import { readFilterParam, type Read } from './filter.js'
import type { CollectionModel } from './model.js'

/** How many filter texts one collection's cache keeps: enough for the filters an application repeats, bounded against many distinct ones. */
export const FILTER_CACHE_SIZE = 256

/**
 * The `filter` parameter of one collection, read once per text: a repeated
 * filter costs what bracket parameters cost (no parse, no check). What is
 * kept is only what the text and the collection's fields decide — the checked
 * expression or the refusal — never a caller's narrowing by rules or a
 * result, so every request still applies its own rules and reads the
 * records as they are. The least recently used text goes first. Held by the
 * collection's routes (one per collection and server), frozen so that no
 * request can change what another one reads.
 */
export class FilterCache {
  readonly #model: CollectionModel
  readonly #size: number
  readonly #reads = new Map<string, Read>()
  /** The text read last: the last in #reads. */
  #latest: string | undefined

  constructor (model: CollectionModel, size = FILTER_CACHE_SIZE) {
    this.#model = model
    this.#size = size
  }

  /** The text's expression (or its refusal), as readFilterParam reads it. */
  read (text: string): Read {
    const kept = this.#reads.get(text)
    if (kept !== undefined) {
      // Most recently used last (a Map iterates in insertion order); the same text again is last already.
      if (text !== this.#latest) {
        this.#reads.delete(text)
        this.#reads.set(text, kept)
        this.#latest = text
      }
      return kept
    }
    const read = readFilterParam(this.#model, text)
    if ('expr' in read) frozen(read.expr)
    this.#reads.set(text, Object.freeze(read))
    this.#latest = text
    if (this.#reads.size > this.#size) this.#reads.delete(this.#reads.keys().next().value as string)
    return read
  }

  /** How many texts are kept (for tests). */
  get size (): number {
    return this.#reads.size
  }
}

function frozen (expr: FilterExpr): void {
  switch (expr.op) {
    case 'and':
    case 'or': for (const item of expr.items) frozen(item); Object.freeze(expr.items); break
    case 'not': frozen(expr.item); break
    case 'in':
    case 'has': Object.freeze(expr.values); break
    default: break
  }
  Object.freeze(expr)
}
