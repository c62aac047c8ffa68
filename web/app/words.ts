import type { Lang } from './i18n.js'

/** A module's own texts in a language: the words, with `{name}` filled from the parameters. */
export type Words<K extends string> = (key: K, params?: Record<string, string | number>) => string

/**
 * The texts of one part of the page (the record page, the webhooks page),
 * kept beside it rather than in the shared tables; German must name every
 * key English has.
 */
export function wordsOf<K extends string> (tables: { en: Record<K, string>, de: Record<K, string> }): (lang: Lang) => Words<K> {
  return (lang) => (key, params) => {
    const text = tables[lang][key]
    return params === undefined ? text : text.replace(/\{(\w+)\}/g, (whole, name: string) => String(params[name] ?? whole))
  }
}
