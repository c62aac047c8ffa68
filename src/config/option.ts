import type { Static, TBoolean, TInteger, TOptional, TSchema, TString } from '@sinclair/typebox'

/** Turns the text of a flag or environment variable into a value, or throws a ConfigError naming `name`. */
export type Reader<T> = (text: string, name: string) => T

/** Where a setting can come from besides its default, and how `--help` describes it. */
export interface OptionSource {
  /** Long flag without dashes. None: a setting only code sets (tests, embedding). */
  flag?: string
  /** One-letter alias (`p` for `-p`); few options have one, so they stay memorable. */
  short?: string
  /** What `--help` shows for the value: `n` prints `--port <n>`. Switches take none. */
  value?: string
  env?: string
  /** The line `--help` prints. */
  help?: string
  /** The flag turns the setting off: `--no-albums` makes `albums.enabled` false. */
  negated?: true
  /** How text becomes a value; booleans, integers and strings have a default reader. */
  read?: Reader<unknown>
}

interface Declaration<T> extends OptionSource {
  default?: T
  read?: Reader<T>
}

/** A default is required unless the setting is optional (absent means "not set"). */
type DefaultOf<S extends TSchema> = S extends TOptional<TSchema> ? unknown : { default: Static<S> }
/** Only booleans, integers and strings can be read without a reader of their own. */
type ReaderOf<S extends TSchema> = S extends TBoolean | TInteger | TString ? unknown : { read: Reader<Static<S>> }

export type OptionDeclaration<S extends TSchema> = Declaration<Static<S>> & DefaultOf<S> & ReaderOf<S>

/**
 * Declares one setting: its TypeBox schema is the type (and any bounds), the
 * declaration adds the default, flag, environment variable, help line and
 * reader. The Config type, the parser and `--help` all come from this.
 */
export function option<S extends TSchema> (schema: S, declaration: OptionDeclaration<S>): S {
  const { default: value, ...source } = declaration
  return value === undefined ? { ...schema, source } : { ...schema, default: value, source }
}

/** The source `option()` attached to a schema, if any. */
export function sourceOf (schema: TSchema): OptionSource | undefined {
  const source: unknown = schema.source
  return isOptionSource(source) ? source : undefined
}

function isOptionSource (value: unknown): value is OptionSource {
  return typeof value === 'object' && value !== null && (!('read' in value) || value.read === undefined || typeof value.read === 'function')
}
