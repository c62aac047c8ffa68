import type { FastifyRequest } from 'fastify'
import { LRUCache } from 'lru-cache'
import type { StoreRevision } from '../../domain/index.js'

/** A successful GraphQL answer as sent: its body and headers, and the revisions of the stores it read with their sum then. */
export interface KeptAnswer {
  readonly body: string
  readonly headers: Readonly<Record<string, string>>
  /** The revisions of every store the answer read (none: it read constants only); it stands while their sum is `at`. */
  readonly revisions: readonly StoreRevision[]
  readonly at: number
}

/** Bounds of the cache: total bytes (bodies and keys), one answer's (a page of large records is sent, not kept), and the longest request text worth a key. */
const MAX_BYTES = 8 * 1024 * 1024
const MAX_ANSWER_BYTES = MAX_BYTES / 8
const TEXT_MAX_LENGTH = 4096

/** What a request text keeps when its answers are each caller's own (under record rules): never sent itself. */
const PER_CALLER: KeptAnswer = Object.freeze({ body: '', headers: {}, revisions: [], at: 0 })

function perCallerKey (key: string, caller: string): string {
  return `${key}\u0000${caller}`
}

/**
 * Successful GraphQL answers by the request that produced them. The albums
 * never change while the server runs and resolving them has no side effects,
 * so such an answer depends on the request alone; a query of records depends
 * on the request and the records of the stores it reads, so it is kept with
 * their revisions and stands only while none of them moved (stores that count
 * their writes only: ./kept-reads.ts); under record rules it is the caller's
 * own, kept per caller as the rules see the caller (subject, roles, admin). Kept, a
 * repeat is answered without negotiation, graphql-http or the engine.
 *
 * A key is what the answer depends on: the method, the Accept header as sent,
 * the Content-Type and the request text (GET: the URL; POST: the body as
 * read, so no JSON.parse is needed to find it). Accept is keyed as sent
 * rather than as the media type negotiated from it so that a hit needs no
 * negotiation: an answer is kept only after its Accept value was found
 * acceptable, and negotiation is a pure function of that value.
 */
export class AnswerCache {
  readonly #answers: LRUCache<string, KeptAnswer>

  constructor (maxEntries: number) {
    this.#answers = new LRUCache({
      max: Math.max(1, maxEntries),
      maxSize: MAX_BYTES,
      maxEntrySize: MAX_ANSWER_BYTES,
      sizeCalculation: (answer, key) => answer.body.length + key.length
    })
  }

  /** The key of a GET or POST request whose text is short enough to keep; undefined for any other. */
  keyOf (request: FastifyRequest): string | undefined {
    const method = request.method
    const text = method === 'GET' ? request.url : method === 'POST' ? request.body : undefined
    if (typeof text !== 'string' || text.length > TEXT_MAX_LENGTH) return undefined
    const headers = request.headers
    return `${method}\n${headers.accept ?? ''}\n${headers['content-type'] ?? ''}\n${text}`
  }

  /** The answer kept for a request: under its key, or for an answer that is each caller's own, under its key and `caller` (a text naming the caller as the rules see it). */
  get (key: string, caller: () => string): KeptAnswer | undefined {
    const kept = this.#answers.get(key)
    return kept === PER_CALLER ? this.#answers.get(perCallerKey(key, caller())) : kept
  }

  keep (key: string, answer: KeptAnswer, caller?: string): void {
    if (caller === undefined) {
      this.#answers.set(key, answer)
      return
    }
    // The request text marks its answers as per caller; each caller's own is kept beside it.
    this.#answers.set(key, PER_CALLER)
    this.#answers.set(perCallerKey(key, caller), answer)
  }

  /** Forgets every answer (the schema they were read from was replaced). */
  clear (): void {
    this.#answers.clear()
  }
}
