import type { FastifyReply } from 'fastify'
import { LRUCache } from 'lru-cache'
import { JSON_TYPE } from '../versioning.js'
import type { StoreRevision } from '../../../domain/index.js'
import type { Revisioned } from './kept-list.js'
import { readPage, type ListSource, type ListRequest, type Page } from '../../../records/index.js'
import { pageHeaders } from './respond.js'

/** Characters of page answers kept per store, all its pages together; the least recently used go first. */
export const PAGES_KEPT_CHARS = 4 * 1024 * 1024

interface KeptPage {
  /** The store's revision the page was read at. */
  revision: number
  next?: string
  total?: number
  body: string
}

/**
 * The JSON pages one service of one server keeps (state lives on the
 * instance): per store (its revision object), by everything that shapes the
 * answer — the representation version, the negotiated content type and the
 * request target (path and query string as sent: filters, sort, cursor,
 * limit, count) — in a bounded LRU.
 */
export class KeptPages {
  readonly #kept = new WeakMap<StoreRevision, LRUCache<string, KeptPage>>()

  /**
   * A JSON page of a revisioned store (see ./kept-list.ts), read and
   * serialised once per store revision and answer key. While the revision
   * stands the kept body and its Link and X-Total-Count are the answer.
   * `body` makes the page's representation; `write` (by default the
   * route's own serializer) writes it, as it would have.
   */
  async send<R, F extends string> (
    reply: FastifyReply,
    collection: ListSource<R, F> & { store: Revisioned },
    list: ListRequest<F>,
    target: string,
    body: (page: Page<R>) => unknown,
    write: (body: unknown) => unknown = (b) => reply.serialize(b)
  ): Promise<FastifyReply> {
    const revision = collection.store.revision
    let pages = this.#kept.get(revision)
    if (pages === undefined) this.#kept.set(revision, pages = newPageCache())
    return await sendPage(reply, collection, list, answerKey(reply, target), body, write, pages)
  }
}

/** What shapes a page's answer besides the records: its version, its content type and the request target. */
function answerKey (reply: FastifyReply, target: string): string {
  return `${reply.request.apiVersion}\u0000${String(reply.getHeader('content-type') ?? '')}\u0000${target}`
}

async function sendPage<R, F extends string> (
  reply: FastifyReply,
  collection: ListSource<R, F> & { store: Revisioned },
  list: ListRequest<F>,
  key: string,
  body: (page: Page<R>) => unknown,
  write: (body: unknown) => unknown,
  pages: LRUCache<string, KeptPage>
): Promise<FastifyReply> {
  const revision = collection.store.revision
  const at = revision.current
  const hit = pages.get(key)
  const page = hit?.revision === at ? hit : await readAndKeep()
  pageHeaders(reply, page)
  // What Fastify gives a body it serialises: a string needs the type said (it would be text/plain).
  if (reply.getHeader('content-type') === undefined) reply.type(JSON_TYPE)
  return reply.send(page.body)

  async function readAndKeep (): Promise<KeptPage> {
    const read = await readPage(collection, list)
    const text = write(await body(read)) // a schema's serializer: a string
    const fresh: KeptPage = { revision: at, next: read.next, total: read.total, body: typeof text === 'string' ? text : Buffer.from(text as Buffer).toString('utf8') }
    // A write while the page was read may or may not be in it: such a page is sent, never kept.
    if (revision.current === at && fresh.body.length <= PAGES_KEPT_CHARS / 4) pages.set(key, fresh)
    else pages.delete(key)
    return fresh
  }
}

function newPageCache (): LRUCache<string, KeptPage> {
  return new LRUCache<string, KeptPage>({ maxSize: PAGES_KEPT_CHARS, sizeCalculation: (p, key) => p.body.length + key.length })
}
