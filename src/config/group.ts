import type { Static, TObject } from '@sinclair/typebox'
import { readSection, type ConfigInput } from './read.js'

/**
 * One section of the configuration, `config.<key>`: its options, each
 * declared once with option(), and how the values read become the section
 * (for most, they are the section). The server's own groups are declared in
 * src/config/; a service brings its group in its descriptor
 * (src/services/types.ts), and src/options.ts puts them together.
 */
export interface OptionGroup<K extends string = string, V = unknown> {
  readonly key: K
  /** The options, in the order `--help` lists them. */
  readonly options: TObject
  /** The section, each option read with readSection's precedence (flag, variable, file, default). */
  read (input: ConfigInput): V
}

/** A group whose section is the values read. */
export function optionGroup<const K extends string, S extends TObject> (key: K, options: S): OptionGroup<K, Static<S>>
/** A group whose values are turned into the section by `resolve` (which may throw a ConfigError for a bad combination). */
export function optionGroup<const K extends string, S extends TObject, V> (key: K, options: S, resolve: (values: Static<S>) => V): OptionGroup<K, V>
export function optionGroup<const K extends string, S extends TObject, V> (key: K, options: S, resolve?: (values: Static<S>) => V): OptionGroup<K, V | Static<S>> {
  return {
    key,
    options,
    read: (input) => {
      const values = readSection(options, input)
      return resolve === undefined ? values : resolve(values)
    }
  }
}

/** The value of a group's section. */
export type SectionOf<G> = G extends OptionGroup<string, infer V> ? V : never

/** The sections some groups make: `{ students: StudentsConfig, … }` for a union of groups. */
export type SectionsOf<G extends OptionGroup> = { [E in G as E['key']]: SectionOf<E> }

/**
 * Reads the sections of some groups, in the order given (the order of
 * `--help`, so the first bad option listed is the one reported).
 */
export function readGroups<G extends OptionGroup> (groups: readonly G[], input: ConfigInput): SectionsOf<G> {
  const sections: Record<string, unknown> = {}
  for (const group of groups) sections[group.key] = group.read(input)
  // Every group's key holds what its read() returned: exactly what SectionsOf says.
  return sections as SectionsOf<G>
}
