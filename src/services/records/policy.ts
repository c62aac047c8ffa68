import type { FastifyInstance } from 'fastify'
import type { TSchema } from '@sinclair/typebox'
import type { Caller, RecordFilter, RecordId, ReferenceFilter, StoreRevision, StoredRecord } from '../../domain/index.js'
import type { AppError, ErrorCode } from '../../http/errors/index.js'
import type { CollectionModel } from '../../http/rest/index.js'
import type { ExpandedRecord, ExpandNode } from '../../records/index.js'

/**
 * What one collection's REST routes say on the wire, beside what its
 * declaration (id rule, putCreates, keptOnUpdate) already tells the store.
 * The handlers of ./routes.ts are the same for every collection; a policy is
 * only data and a few small functions, all read once at registration.
 */
export interface WirePolicy {
  /** The records' path below the mount's prefix: '' (students), '/addresses', '/books'. */
  resources: string
  /** How a record is named in precondition failures (`student 7`, `address 7`, `books 7`). */
  noun: string
  ids: IdCodec
  /** The answer to a missing record, and its code (listed in the API description). */
  notFound: { code: ErrorCode, error: (id: RecordId) => AppError }
  /**
   * `whole`: a list without parameters is every record (an array), `limit`
   * asks for a page `{items, next}` (students v2). `pages`: every list is a
   * page (the address book, declared collections).
   */
  list: 'whole' | 'pages'
  /**
   * false: no `GET …/aggregate` route. Students v2 shares its base path with
   * v1, whose `/{id}` answers `/students/aggregate` for a plain-JSON client
   * (an INVALID_ID no description of the route could say), so it has none yet.
   */
  aggregates?: boolean
  /** A create's 201 may carry `Replaced-Record` (the students' count id rule). */
  replacedHeader: boolean
  /** Codes a create or replace may answer beyond the shared ones, for the API description (a declared unique key's DUPLICATE_KEY). */
  writeErrors?: readonly ErrorCode[]
  schemas: {
    /** The record as answered. */
    record: TSchema
    /** The list's answer: a page, or (whole lists) a union of array and page. */
    list: TSchema
    /** Whole lists: the array and the page, each serialised by its own schema. */
    array?: TSchema
    page?: TSchema
    /** The list's query parameters and the model they are parsed by. */
    querystring: unknown
    model: CollectionModel
    create: unknown
    put: unknown
    /** With `expand`: the query parameters of a read by id. */
    expandQuery?: unknown
  }
  /** An NDJSON line of a record, newline included (a method: a typed view's line fits). */
  line (record: StoredRecord): string
  /** The API description of each operation: tags, ids, summaries, answers' texts. */
  tags: string[]
  operations: Record<'list' | 'get' | 'create' | 'replace' | 'delete', Operation>
  /** Registration-time setup of the scope: body parsers, validator compilers. */
  prepare: (app: FastifyInstance) => void
  /** References between collections, on collections with relations: `?expand=`, filters through references, their refusals. */
  expand?: Expansion
}

/**
 * A collection's relations on the wire: how its records are answered with
 * the records its relations lead to (src/records/expand.ts), how a list is
 * filtered through its references, and which refusals its writes may meet.
 */
export interface Expansion {
  /** The relation names `expand` may start with. */
  relations: readonly string[]
  /** The collection has reference fields (a write may name a missing record: REFERENCE_NOT_FOUND). */
  refers: boolean
  /** Other collections refer to it (a delete may be restricted: RECORD_REFERENCED). */
  referred: boolean
  /** The relations an `expand` parameter names and the schemas of its answers (kept per text), or QueryRefused. */
  parse: (text: string) => AskedExpansion
  /**
   * One revision for the pages of a store (at `own`) expanded as `asked`
   * says: it moves on whenever that store or any store the expansion reads is
   * written, so a page kept by it is exact while it stands. Undefined when a
   * store it reads keeps no revision (a database) or has record rules (each
   * caller's answer is its own).
   */
  keptRevision: (asked: AskedExpansion, own: StoreRevision) => StoreRevision | undefined
  /** The records with their `expand` member: one store query per relation; with a caller, only the targets it may view, as it may see them. */
  apply: (nodes: readonly ExpandNode[], records: readonly StoredRecord[], caller?: Caller) => Promise<ExpandedRecord[]>
  /**
   * The filters through references of a list's query (`author.name[contains]=…`,
   * `filter=author.name = 'x'`), the rest of it, the parameters a next link
   * carries on, and (when `filter=` went through a reference) the expression's
   * own part, read here; undefined without any. With a caller, each only over
   * the target records it may list.
   */
  through: (query: Readonly<Record<string, unknown>>, caller?: Caller) => { rest: Record<string, unknown>, filters: ReferenceFilter[], carried: Array<[string, string]>, own?: RecordFilter } | undefined
}

/** One `expand` text, parsed: its relations, and the schemas a record and a page expanded by them are serialised with. */
export interface AskedExpansion {
  nodes: ExpandNode[]
  /** The collections the expansion reads, at every level. */
  targets: readonly string[]
  record: TSchema
  page: TSchema
}

export interface Operation {
  operationId: string
  summary: string
  description?: string
  /** The success answer's description. */
  answer: string
  /** replace with putCreates: the 201 answer's description. */
  created?: string
}

/** A collection's id on the wire: a path segment, its description, a PUT body's id. */
export interface IdCodec {
  /** The id of a path segment; throws INVALID_ID, in the collection's wording, for anything else. */
  parse: (segment: string) => RecordId
  /** The path parameters' schema, as the API description shows it. */
  params: unknown
  /** A PUT body's id (sent: not undefined) against the path's: the failure, or undefined when they agree. */
  checkBody: (value: unknown, id: RecordId) => AppError | undefined
}
