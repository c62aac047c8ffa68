import { KindGuard, type Static, type TObject, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { ConfigError } from './errors.js'
import { sourceOf, type OptionSource, type Reader } from './option.js'
import { integer, onOff, text } from './readers.js'

/** Flag values by long name (`port`, `no-albums`), as `node:util` parseArgs returns them. */
export type Flags = Record<string, FlagValue | FlagValue[] | undefined>
type FlagValue = string | boolean

/** Settings read from a configuration file (`--config rqs.json`), keyed by long flag name. */
export interface ConfigFile {
  /** The file as the user named it, for messages. */
  name: string
  values: Readonly<Record<string, unknown>>
}

export interface ConfigInput {
  flags: Flags
  env: NodeJS.ProcessEnv
  file?: ConfigFile
}

/** One line of `--help`, and what parseArgs needs to know about the flag. */
export interface DeclaredOption {
  flag: string
  short?: string
  env?: string
  help: string
  /** False for switches (`--access-log`, `--no-albums`). */
  takesValue: boolean
  /** The placeholder `--help` shows for the value (`n` in `--port <n>`); none for switches. */
  value?: string
  /** The key of the option group it belongs to (`store`, `albums`); `--help` lists each group under a heading. */
  group?: string
}

/**
 * Reads every setting of a section, each with the precedence
 * flag > environment variable > configuration file > declared default. The result is checked
 * against the section's schema, which is also what gives it its type.
 */
export function readSection<S extends TObject> (section: S, input: ConfigInput): Static<S> {
  const values: Record<string, unknown> = {}
  for (const [key, schema] of Object.entries(section.properties)) {
    const value = readSetting(schema, input)
    if (value !== undefined) values[key] = value
  }
  if (Value.Check(section, values)) return values
  // Only a declaration whose reader or default does not match its schema gets here: a bug, not bad input.
  const problems = [...Value.Errors(section, values)].map((e) => `${e.path} ${e.message}`)
  throw new Error(`configuration declaration does not match its schema: ${problems.join('; ')}`)
}

function readSetting (schema: TSchema, { flags, env, file }: ConfigInput): unknown {
  const source = sourceOf(schema)
  // The precedence, in this order: the flag, its environment variable, the file, the declared default.
  if (source?.flag !== undefined) {
    const fromFlag = lastOf(flags[source.flag])
    if (fromFlag !== undefined) return readValue(schema, source, fromFlag, `--${source.flag}`)
  }
  if (source?.env !== undefined) {
    const fromEnv = env[source.env]
    if (fromEnv !== undefined) return readValue(schema, source, fromEnv, source.env)
  }
  if (source?.flag !== undefined && file !== undefined && Object.hasOwn(file.values, source.flag)) {
    const name = `${source.flag} in ${file.name}`
    return readValue(schema, source, fileText(schema, file.values[source.flag], name), name)
  }
  // A fresh copy, so that no two configurations share a default array.
  return Value.Clone(schema.default)
}

/** A flag given twice counts once, the last time (parseArgs already does so for rqs's flags). */
function lastOf (value: FlagValue | FlagValue[] | undefined): FlagValue | undefined {
  return Array.isArray(value) ? value.at(-1) : value
}

function readValue (schema: TSchema, source: OptionSource, raw: string | boolean, name: string): unknown {
  let value: unknown
  if (typeof raw === 'boolean') {
    if (!KindGuard.IsBoolean(schema)) throw new ConfigError(`${name} needs a value`)
    value = raw
  } else {
    value = readerFor(schema, source)(raw, name)
  }
  return source.negated === true && typeof value === 'boolean' ? !value : value
}

/**
 * A file's JSON value as the text or switch a flag would give: switches take
 * true or false, other options a string or a number (read by the same reader
 * as the flag, so the same bounds and messages apply); a list such as
 * `"deprecate": [1, 2]` reads as `1,2`.
 */
function fileText (schema: TSchema, value: unknown, name: string): string | boolean {
  if (KindGuard.IsBoolean(schema)) {
    if (typeof value !== 'boolean') throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(value)}`)
    return value
  }
  if (typeof value === 'string') return value
  if (typeof value === 'number') return String(value)
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.join(',')
  throw new ConfigError(`${name} must be a string or a number, got ${JSON.stringify(value)}`)
}

function readerFor (schema: TSchema, source: OptionSource): Reader<unknown> {
  if (source.read !== undefined) return source.read
  if (KindGuard.IsBoolean(schema)) return onOff
  if (KindGuard.IsInteger(schema)) return integer(schema)
  if (KindGuard.IsString(schema)) return text
  // option() requires a reader for every other type, so only an untyped declaration gets here.
  throw new Error(`option ${source.flag ?? source.env ?? ''} declares no reader`)
}

/** The flags of some sections, in declaration order (the order of `--help`), each marked with `group` if given. */
export function declaredOptions (sections: readonly TObject[], group?: string): DeclaredOption[] {
  const options: DeclaredOption[] = []
  for (const section of sections) {
    for (const schema of Object.values(section.properties)) {
      const source = sourceOf(schema)
      if (source?.flag === undefined) continue
      const takesValue = !KindGuard.IsBoolean(schema)
      options.push({
        flag: source.flag,
        short: source.short,
        env: source.env,
        help: source.help ?? '',
        takesValue,
        // A placeholder for every option that takes a value, so options added later show one too.
        value: takesValue ? source.value ?? (KindGuard.IsInteger(schema) ? 'n' : 'value') : undefined,
        ...(group === undefined ? {} : { group })
      })
    }
  }
  return options
}
