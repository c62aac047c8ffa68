import { Type } from '@sinclair/typebox'
import { RULE_OPERATIONS, type RuleOperation, type RuleTexts } from '../domain/index.js'
import { closestWord } from '../lib/suggest.js'
import { ConfigError } from './errors.js'
import type { OptionGroup } from './group.js'
import type { ConfigInput } from './read.js'

/**
 * Rules of the built-in collections (docs/rules.md), `config.rules`: read
 * from the configuration file's `"rules"` member only (no flag, no variable:
 * five expressions per collection fit a file, not a command line), as
 * `{"students": {"list": "…", …}, "addresses": {…}}`. Only their shape is
 * checked here; which collections may take them and whether each expression
 * fits the collection's fields is checked where the collections are known
 * (src/options.ts), at start, with the JSON path and the position.
 */
export interface RulesConfig {
  /** The configuration file that declared them, for messages; none without any. */
  source?: string
  /** The rules by collection name. */
  collections: Readonly<Record<string, RuleTexts>>
}

/** The configuration file's member that holds them: a key that is no option's flag. */
export const RULES_KEY = 'rules'

/** The group that makes `config.rules`, undefined without any (no options of its own: the file's member is read by hand). */
export const rulesGroup: OptionGroup<'rules', RulesConfig | undefined> = {
  key: 'rules',
  options: Type.Object({}),
  read: (input) => readRules(input)
}

function readRules ({ file }: ConfigInput): RulesConfig | undefined {
  if (file === undefined || !Object.hasOwn(file.values, RULES_KEY)) return undefined
  const fail = (path: string, message: string): never => { throw new ConfigError(`${file.name}: ${path}: ${message}`) }
  const value = file.values[RULES_KEY]
  if (!isObject(value)) fail(RULES_KEY, 'must be an object of rules by built-in collection, e.g. {"students": {"delete": "@request.auth.roles ?= \'registrar\'"}}')
  const collections: Record<string, RuleTexts> = {}
  for (const [name, rules] of Object.entries(value as Record<string, unknown>)) {
    const path = `${RULES_KEY}.${name}`
    if (!isObject(rules)) fail(path, `must be an object of rules by operation (${RULE_OPERATIONS.join(', ')}), e.g. {"update": "@request.auth.roles ?= 'editor'"}`)
    const texts: RuleTexts = {}
    for (const [operation, text] of Object.entries(rules as Record<string, unknown>)) {
      if (!(RULE_OPERATIONS as readonly string[]).includes(operation)) {
        const guess = closestWord(operation, RULE_OPERATIONS)
        fail(`${path}.${operation}`, `"${operation}" is no operation${guess === undefined ? '' : `; did you mean "${guess}"?`} (rules: ${RULE_OPERATIONS.join(', ')})`)
      }
      if (typeof text !== 'string') fail(`${path}.${operation}`, `must be an expression in a string ("" lets anyone through whom the scopes let through), got ${JSON.stringify(text)}`)
      texts[operation as RuleOperation] = text as string
    }
    collections[name] = texts
  }
  return { source: file.name, collections }
}

function isObject (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
