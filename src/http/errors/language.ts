import { LanguageChooser } from '../../lib/negotiate.js'

/** Languages the error texts exist in; the first is the fallback. */
export const LANGUAGES = ['en', 'de'] as const
export type Language = (typeof LANGUAGES)[number]

const chooser = new LanguageChooser(LANGUAGES)

/**
 * Picks the best language for an Accept-Language header by q-value (`de-CH`
 * gets `de`). A header naming only languages we lack is no error: English is
 * the answer then, as it is without a header. Called only when an error or a
 * page is rendered.
 */
export function negotiateLanguage (acceptLanguage: string | string[] | undefined): Language {
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(', ') : acceptLanguage
  return chooser.select(header) as Language
}
