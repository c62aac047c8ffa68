import type { FastifyInstance, FastifyRequest } from 'fastify'
import { type Representation, answerOnce, answerWrite, type WriteAnswer, parseListQuery, ENVELOPE_FRAME, pageHeaders, readPage, sendJsonList, sendStream, csvColumns, streamsWhole, isRevisioned } from '../../http/rest/index.js'
import type { StudentRoutesOptions } from './options.js'
import { messages, ok } from './envelope.js'
import { studentNotFound } from './failures.js'
import { studentId as pathId } from './ids.js'
import { envelopeErrors, envelopeShape } from './v1-errors.js'
import { answer, type OperationNotes } from '../../http/openapi/index.js'
import type { DeleteResult, KeyedWrite, ReplaceResult } from '../../domain/index.js'
import type { ErrorCode } from '../../http/errors/index.js'
import type { Student, StudentCreated } from './records.js'
import { replacedHeader } from './replaced.js'
import { guardedV1 } from './v1-rules.js'
import { STUDENT_QUERY, studentLine, StudentListQuery } from './query.js'
import {
  IdParams, MessageEnvelope, StudentCreateBody, StudentEnvelope, StudentListEnvelope, StudentReplaceBody
} from './schema.js'

const errorResponses = { '4xx': MessageEnvelope, '5xx': MessageEnvelope }
const tags = ['students v1 (envelope)']
/** For the API description: every answer is the envelope, and every route reads or writes records. */
const notes = (extra: OperationNotes = {}): OperationNotes => ({ errorShape: envelopeShape, store: true, ...extra })

/**
 * Version 1: the spec's student records service, exactly. Every answer,
 * errors included, is the `{isSuccessful, body}` envelope (./v1-errors.ts
 * words the errors the routes throw).
 */
async function routesV1 (app: FastifyInstance, opts: StudentRoutesOptions): Promise<void> {
  const { store } = opts
  const collection = { store, path: app.prefix === '' ? '/' : app.prefix }
  // Rules from the configuration file (docs/rules.md) swap in handlers that apply them; without any, these plain ones run.
  const { access } = opts.records.declaration
  const guarded = access === undefined ? undefined : guardedV1(store, opts.records, access, collection.path, app.prefix)
  const ruleErrors: ErrorCode[] = access === undefined ? [] : ['RULE_DENIED']

  app.get<{ Querystring: Record<string, unknown> }>('/', {
    schema: {
      operationId: 'listStudents',
      tags,
      summary: 'List students (filter, sort, search; paged with limit; NDJSON with Accept: application/x-ndjson)',
      description: 'Without parameters: every student in the envelope, as the spec says. With `limit`: a page in the envelope and `Link: <…>; rel="next"`; `count=true` adds `X-Total-Count`.',
      querystring: StudentListQuery,
      'x-rqs': notes({ errors: ['INVALID_QUERY', 'INVALID_CURSOR'], headers: { 200: ['Link', 'X-Total-Count'] } }),
      response: { 200: answer(StudentListEnvelope, 'Students in the envelope: every one, or a page.'), ...errorResponses }
    },
    config: { streams: true, rqs: { access: 'read' } }
  }, guarded?.list ?? (async (request, reply) => {
    // No parameters: the spec's answer, every record in the envelope (built once per store revision where the store has one).
    if (request.stream === undefined && Object.keys(request.query).length === 0) {
      if (isRevisioned(store)) return await opts.lists.send(reply, store, ENVELOPE_FRAME)
      if (await streamsWhole(store)) return await sendJsonList(reply, store, ENVELOPE_FRAME)
      return ok(await store.list())
    }
    const list = parseListQuery(STUDENT_QUERY, request.query, request.stream === undefined ? 'page' : 'stream')
    if (request.stream !== undefined) return await sendStream(reply, collection, list, request.stream, { line: studentLine, columns: csvColumns(STUDENT_QUERY) })
    const page = await readPage(collection, list)
    pageHeaders(reply, page)
    return ok(page.items)
  }))

  app.get<{ Params: IdParams }>('/:id', {
    config: { rqs: { access: 'read' } },
    compress: false, // one record: always small (src/http/compression.ts)
    schema: { operationId: 'getStudent', tags, summary: 'Retrieve a student', params: IdParams, 'x-rqs': notes({ errors: ['INVALID_ID', 'STUDENT_NOT_FOUND'] }), response: { 200: answer(StudentEnvelope, 'The student.'), ...errorResponses } }
  }, guarded?.get ?? (async (request) => {
    const id = pathId(request.params.id)
    const student = await store.get(id)
    if (student === undefined) throw studentNotFound(id)
    return ok(student)
  }))

  // Made once: a create without an Idempotency-Key makes no closure of its own.
  const prefix = `${app.prefix}/`
  const created = ({ outcome, record }: StudentCreated): WriteAnswer => outcome === 'created' ? { status: 201, body: ok(record) } : { status: 201, headers: replacedHeader(outcome, record, prefix), body: ok(record) }
  const create = (keyed: KeyedWrite<StudentCreated> | undefined, request: FastifyRequest<{ Body: StudentCreateBody }>): Promise<StudentCreated> => store.createReporting(request.body, keyed)
  app.post<{ Body: StudentCreateBody }>('/', {
    compress: false, // one record: always small (src/http/compression.ts)
    config: { rqs: { access: 'write' } },
    schema: {
      operationId: 'createStudent',
      tags,
      summary: 'Create a student (id = number of records held)',
      description: 'The id is the number of records held before the create (spec rule): after a delete, a create can reuse, and overwrite, an id.',
      body: StudentCreateBody,
      'x-rqs': notes({ ...(ruleErrors.length === 0 ? {} : { errors: ruleErrors }), headers: { 201: ['Replaced-Record'] } }),
      response: { 201: answer(StudentEnvelope, 'Created: the stored student with its id.'), ...errorResponses }
    }
  }, guarded?.create ?? ((request, reply) => answerWrite(request, reply, store, create, created)))

  app.put<{ Body: StudentReplaceBody }>('/', {
    compress: false, // one record: always small (src/http/compression.ts)
    config: { rqs: { access: 'write' } },
    schema: { operationId: 'replaceStudent', tags, summary: 'Replace the student named by body.id (never creates)', body: StudentReplaceBody, 'x-rqs': notes({ errors: ['STUDENT_NOT_FOUND', ...ruleErrors] }), response: { 200: answer(StudentEnvelope, 'The stored student.'), ...errorResponses } }
  }, guarded?.replace ?? (async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const replaced = (result: ReplaceResult<Student>): WriteAnswer | undefined => result.outcome === 'replaced' ? { status: 200, body: ok(result.record) } : undefined
    const written = replaced(await store.replace(request.body, undefined, keep(replaced)))
    if (written === undefined) throw studentNotFound(request.body.id)
    return written
  })))

  app.delete<{ Params: IdParams }>('/:id', {
    config: { rqs: { access: 'write' } },
    compress: false, // one record: always small (src/http/compression.ts)
    schema: { operationId: 'deleteStudent', tags, summary: 'Delete a student', params: IdParams, 'x-rqs': notes({ errors: ['INVALID_ID', 'STUDENT_NOT_FOUND', ...ruleErrors] }), response: { 200: answer(MessageEnvelope, 'Deleted: "Student with id {id} was deleted".'), ...errorResponses } }
  }, guarded?.remove ?? (async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const id = pathId(request.params.id)
    const deleted = (result: DeleteResult): WriteAnswer | undefined => result.outcome === 'deleted' ? { status: 200, body: ok(messages.deleted(id)) } : undefined
    const written = deleted(await store.delete(id, undefined, keep(deleted)))
    if (written === undefined) throw studentNotFound(id)
    return written
  })))
}

export const studentsV1: Representation<StudentRoutesOptions> = {
  version: 1,
  plugin: routesV1,
  errors: envelopeErrors,
  methods: [['/', ['GET', 'POST', 'PUT']], ['/:id', ['GET', 'DELETE']]]
}
