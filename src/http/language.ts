import Negotiator from 'negotiator'

/** Languages the error texts exist in; the first is the fallback. */
export const LANGUAGES = ['en', 'de'] as const
export type Language = (typeof LANGUAGES)[number]

const AVAILABLE = [...LANGUAGES]

/**
 * Picks the best language for an Accept-Language header by q-value (negotiator
 * does RFC 9110 / RFC 4647 matching, so `de-CH` gets `de`). A header naming
 * only languages we lack is no error: English is the answer then, as it is
 * without a header. Called only when an error is rendered.
 */
export function negotiateLanguage (acceptLanguage: string | string[] | undefined): Language {
  if (acceptLanguage === undefined || acceptLanguage === '') return LANGUAGES[0]
  const header = Array.isArray(acceptLanguage) ? acceptLanguage.join(', ') : acceptLanguage
  const best = new Negotiator({ headers: { 'accept-language': header } }).language(AVAILABLE)
  return (best as Language | undefined) ?? LANGUAGES[0]
}
