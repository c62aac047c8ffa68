import Negotiator from 'negotiator'
import { LRUCache } from 'lru-cache'

/**
 * Content negotiation with a memory. Clients send few distinct Accept and
 * Accept-Language values, so each chooser remembers its answers in a bounded
 * LRU instead of parsing the header on every request. One class for every
 * place that negotiates (versions, GraphQL media types, pages, languages).
 */
const CACHE_SIZE = 512
/** What a cache slot holds for "nothing offered is acceptable" (LRUCache cannot store undefined). */
const NONE = ''

abstract class CachedChooser {
  // Made with the first header to remember: an LRU allocates its slots up front, and routes make many choosers.
  #cache: LRUCache<string, string> | undefined

  constructor (readonly offered: readonly string[]) {}

  protected abstract pick (header: string): string | undefined

  protected choose (header: string): string | undefined {
    const cache = this.#cache ??= new LRUCache<string, string>({ max: CACHE_SIZE })
    const cached = cache.get(header)
    if (cached !== undefined) return cached === NONE ? undefined : cached
    const best = this.pick(header)
    cache.set(header, best ?? NONE)
    return best
  }
}

/** Picks the best of `offered` media types for an Accept header, by q-value and specificity. */
export class MediaTypeChooser extends CachedChooser {
  /** The best offered type, the first offered one for a missing or empty header, undefined when none is acceptable. */
  select (accept: string | undefined): string | undefined {
    if (accept === undefined || accept === '') return this.offered[0]
    return this.choose(accept)
  }

  /** True when the client prefers `type` over every other offered type (a missing header prefers nothing). */
  prefers (accept: string | undefined, type: string): boolean {
    return accept !== undefined && accept !== '' && this.choose(accept) === type
  }

  protected pick (accept: string): string | undefined {
    return new Negotiator({ headers: { accept } }).mediaType(this.offered as string[])
  }
}

/** Picks the best of `offered` languages for an Accept-Language header (RFC 4647 matching: de-CH gets de). */
export class LanguageChooser extends CachedChooser {
  /** The best offered language; the first offered one when none matches or no header is sent. */
  select (acceptLanguage: string | undefined): string {
    const fallback = this.offered[0] as string
    if (acceptLanguage === undefined || acceptLanguage === '') return fallback
    return this.choose(acceptLanguage) ?? fallback
  }

  protected pick (header: string): string | undefined {
    return new Negotiator({ headers: { 'accept-language': header } }).language(this.offered as string[])
  }
}
