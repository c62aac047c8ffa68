import { GraphQLError } from 'graphql'
import { GRAPHQL_CODES } from './limits.js'

/**
 * Limits that keep graphql-js's recursive-descent parser (and the recursive
 * walks after it) far from the end of the stack (issue 10, defect 2). A list
 * literal nested ~2 000 deep, an object literal ~1 600 deep or inline
 * fragments nested ~2 000 deep overflow it, and 16 KB of text holds more than
 * that. So the text is scanned for bracket nesting before it is parsed, in one
 * pass that stops at the limit.
 */

/** Fewest bracket levels a document may always nest: far above any real query, far below an overflow. */
const MIN_NESTING = 128
/** Most bracket levels ever allowed, whatever --graphql-max-depth says (overflow starts near 1 600). */
const MAX_NESTING = 512

/**
 * graphql-js stops parsing past this many tokens. A 16 KB document has at most
 * 16 384 (one per punctuator); GraphiQL's introspection query has about 300.
 */
export const MAX_TOKENS = 5000

/**
 * How deep `{`, `[` and `(` may nest. Selections count one level each, and
 * arguments, lists and inline fragments add more, so the limit leaves room
 * above the selection depth limit.
 */
export function nestingLimit (maxSelectionDepth: number): number {
  return Math.min(MAX_NESTING, Math.max(MIN_NESTING, maxSelectionDepth + 64))
}

// Character codes the scan looks at.
const NEWLINE = 10
const RETURN = 13
const QUOTE = 34
const HASH = 35
const BACKSLASH = 92
const OPENING = new Set([40, 91, 123]) // ( [ {
const CLOSING = new Set([41, 93, 125]) // ) ] }

/**
 * Whether a GraphQL document nests brackets deeper than `limit`. Brackets in
 * strings, block strings and comments do not count; the text need not be
 * valid GraphQL (the parser judges that afterwards, safely).
 */
export function nestsDeeperThan (source: string, limit: number): boolean {
  let depth = 0
  const length = source.length
  for (let i = 0; i < length; i++) {
    const c = source.charCodeAt(i)
    if (c === HASH) {
      while (i < length && source.charCodeAt(i) !== NEWLINE && source.charCodeAt(i) !== RETURN) i++
    } else if (c === QUOTE) {
      i = source.startsWith('"""', i) ? endOfBlockString(source, i + 3) : endOfString(source, i + 1)
    } else if (OPENING.has(c)) {
      if (++depth > limit) return true
    } else if (CLOSING.has(c)) {
      depth--
    }
  }
  return false
}

/** Index of the closing quote of a "string" (or the end of its line / of the text). */
function endOfString (source: string, from: number): number {
  for (let i = from; i < source.length; i++) {
    const c = source.charCodeAt(i)
    if (c === BACKSLASH) i++
    else if (c === QUOTE || c === NEWLINE || c === RETURN) return i
  }
  return source.length
}

/** Index of the last quote of a """block string""" (\""" does not close it). */
function endOfBlockString (source: string, from: number): number {
  for (let i = from; i < source.length; i++) {
    if (source.charCodeAt(i) === BACKSLASH && source.startsWith('"""', i + 1)) i += 3
    else if (source.startsWith('"""', i)) return i + 2
  }
  return source.length
}

/** The GraphQL error for a document nested too deeply (code NESTING_TOO_DEEP from the catalogue). */
export function nestingTooDeep (limit: number): GraphQLError {
  return new GraphQLError(`The GraphQL document nests brackets ({, [, () deeper than ${limit} levels.`, { extensions: { code: GRAPHQL_CODES.nestingTooDeep } })
}

/** Whether a parse error is graphql-js refusing a document for having more than MAX_TOKENS tokens. */
export function isTokenLimitError (error: GraphQLError): boolean {
  return error.message.includes(`more than ${MAX_TOKENS} tokens`)
}
