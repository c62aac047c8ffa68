import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerKey, writeAllowed, type CollectionAccess, type DeleteResult, type RecordStore, type ReplaceResult, type StoredRecord } from '../../domain/index.js'
import { answerOnce, csvColumns, pageHeaders, parseListQuery, readPage, sendStream, type WriteAnswer } from '../../http/rest/index.js'
import type { ListSource } from '../../records/index.js'
import { narrowedFilter, permittedCreate, requestCaller, ruleDenied, viewAllowed, visibleRecord, visibleStore } from '../records/access.js'
import { messages, ok, type Envelope } from './envelope.js'
import { studentNotFound } from './failures.js'
import { studentId as pathId } from './ids.js'
import { STUDENT_QUERY, studentLine } from './query.js'
import type { Student, StudentCreated, StudentStore } from './records.js'
import { replacedHeader } from './replaced.js'
import type { StudentCreateBody, StudentReplaceBody } from './schema.js'

/**
 * Version 1's handlers when the configuration file gives the students rules
 * (docs/rules.md): the same answers in the spec's envelope, each narrowed to
 * what its caller may do. A list holds what the list rule allows, a record
 * out of view is v1's not-found, a write a rule refuses is 403 in the
 * envelope (`{isSuccessful: false, body: "…"}`). Registered instead of the
 * plain handlers only then, so students without rules pay nothing for them.
 */
export interface GuardedV1 {
  list: (request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply: FastifyReply) => Promise<unknown>
  get: (request: FastifyRequest<{ Params: { id: string } }>) => Promise<Envelope<Student>>
  create: (request: FastifyRequest<{ Body: StudentCreateBody }>, reply: FastifyReply) => Promise<unknown>
  replace: (request: FastifyRequest<{ Body: StudentReplaceBody }>, reply: FastifyReply) => Promise<unknown>
  remove: (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => Promise<unknown>
}

/** How often a write reads again when another write came between its check and its write. */
const ATTEMPTS = 5

/** The v1 handlers under `access` (`records`: the record store the typed view `store` reads; `path`: the list's URL path). */
export function guardedV1 (store: StudentStore, records: RecordStore, access: CollectionAccess, path: string, prefix: string): GuardedV1 {
  const writers = { line: studentLine, columns: csvColumns(STUDENT_QUERY) }
  /** The record if this caller may view it. */
  const viewable = async (request: FastifyRequest, id: number): Promise<Student | undefined> => {
    const found = await store.get(id)
    return found === undefined || !viewAllowed(access, requestCaller(request), found) ? undefined : found
  }
  return {
    list: async (request, reply) => {
      const caller = requestCaller(request)
      const mine = { store: visibleStore(records, access, caller), path }
      // No parameters: every record the caller may list, as the spec's whole list.
      const list = parseListQuery(STUDENT_QUERY, request.query, request.stream === undefined ? 'page' : 'stream')
      const narrowed = { ...list, filter: narrowedFilter(access, caller, list.filter, { sort: list.sort }) }
      // A stored student is a Student: the typed view reads the same records.
      if (request.stream !== undefined) return await sendStream(reply, mine as unknown as ListSource<Student, string>, narrowed, request.stream, writers)
      const page = await readPage(mine, narrowed)
      pageHeaders(reply, page)
      return ok(page.items)
    },
    get: async (request) => {
      const id = pathId(request.params.id)
      const found = await viewable(request, id)
      if (found === undefined) throw studentNotFound(id)
      return ok(visibleRecord(access, found, requestCaller(request)))
    },
    create: async (request, reply) => {
      const caller = requestCaller(request)
      const created = ({ outcome, record }: StudentCreated): WriteAnswer => ({ status: 201, headers: replacedHeader(outcome, record, `${prefix}/`), body: ok(visibleRecord(access, record, caller)) })
      return await answerOnce(request, reply, store, async (keep) => {
        const input = permittedCreate(access, caller, request.body)
        return created(await store.createReporting(input, keep(created)))
      }, callerKey(caller))
    },
    replace: async (request, reply) => {
      const caller = requestCaller(request)
      const { id } = request.body
      const replaced = (result: ReplaceResult<Student>): WriteAnswer | undefined => result.outcome === 'replaced' ? { status: 200, body: ok(visibleRecord(access, result.record, caller)) } : undefined
      return await answerOnce(request, reply, store, async (keep) => {
        for (let attempt = 1; ; attempt++) {
          const current = await viewable(request, id)
          if (current === undefined) throw studentNotFound(id)
          const written: StoredRecord = { id, firstName: request.body.firstName, lastName: request.body.lastName, age: request.body.age }
          if (!writeAllowed(access, 'update', caller, { stored: current, written, body: request.body })) throw ruleDenied('update', `student ${id}`)
          // Pinned to the record checked: one changed meanwhile is checked again.
          const result = await store.replace(request.body, { kind: 'matches', current }, keep(replaced))
          const answer = replaced(result)
          if (answer !== undefined) return answer
          if (result.outcome === 'not-found' || attempt === ATTEMPTS) throw studentNotFound(id)
        }
      }, callerKey(caller))
    },
    remove: async (request, reply) => {
      const caller = requestCaller(request)
      const id = pathId(request.params.id)
      const deleted = (result: DeleteResult): WriteAnswer | undefined => result.outcome === 'deleted' ? { status: 200, body: ok(messages.deleted(id)) } : undefined
      return await answerOnce(request, reply, store, async (keep) => {
        for (let attempt = 1; ; attempt++) {
          const current = await viewable(request, id)
          if (current === undefined) throw studentNotFound(id)
          if (!writeAllowed(access, 'delete', caller, { stored: current })) throw ruleDenied('delete', `student ${id}`)
          const result = await store.delete(id, { kind: 'matches', current }, keep(deleted))
          const answer = deleted(result)
          if (answer !== undefined) return answer
          if (result.outcome === 'not-found' || attempt === ATTEMPTS) throw studentNotFound(id)
        }
      }, callerKey(caller))
    }
  }
}
