import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { NO_CONDITION, type DeleteResult, type ReplaceResult, type Student as StoredStudent, type StudentCreated, type WriteCondition } from '../../domain/index.js'
import { replacedHeader } from './replaced.js'
import { parseNonNegativeInteger, conditionalRead, hasPreconditions, preconditionFailed, writeConditionFor, type Representation, JSON_TYPE, parseListQuery, ARRAY_FRAME, pageHeaders, readPage, sendJsonList, sendStream, csvColumns, streamsWhole, isRevisioned, answerOnce, type Keep, type WriteAnswer } from '../../http/rest/index.js'
import { AppError, problems } from '../../http/errors/index.js'
import type { StudentRoutesOptions } from './options.js'
import { invalidId, studentNotFound as notFound } from './failures.js'
import { STUDENT_QUERY, studentLine, StudentListQuery } from './query.js'
import { ADA, IdParams, Student, StudentCreateBody, StudentReplaceBody } from './schema.js'
import { answer, noBody, type OperationNotes } from '../../http/openapi/index.js'
const tags = ['students v2']
/** For the API description: problem details (the default shape), and every route reads or writes records. */
const notes = (extra: OperationNotes = {}): OperationNotes => ({ store: true, ...extra })

const StudentList = Type.Array(Student)
/** A page, when the client asked for one (`limit`): `next` only when another page follows. */
const StudentPage = Type.Object({ items: StudentList, next: Type.Optional(Type.String()) }, { additionalProperties: false })

/** PUT /{id} body: the id comes from the path; a body id, if sent, must agree. */
const StudentPutBody = Type.Object(
  { id: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'If sent, the id of the path (else 400 ID_MISMATCH).' })), firstName: StudentCreateBody.properties.firstName, lastName: StudentCreateBody.properties.lastName, age: StudentCreateBody.properties.age },
  { title: 'StudentUpdate', additionalProperties: false, description: 'A whole student record for the id in the path.', examples: [ADA] }
)

/**
 * Version 2 of the student records service: the same records and id rule,
 * restructured (hence a new media type): plain Student bodies, 201 with
 * Location, 204 on delete, RFC 9457 problem details for every error, and
 * ETag / If-Match / If-None-Match like the address book.
 */
async function routesV2 (app: FastifyInstance, opts: StudentRoutesOptions): Promise<void> {
  const { store } = opts
  // Strong ETags, hashed once per stored record object (./etag.ts).
  const studentEtag = opts.etags.of
  const collection = app.prefix === '' ? '' : app.prefix
  // Only JSON bodies here: text/plain is 415, not a string to validate.
  app.removeContentTypeParser('text/plain')

  app.get<{ Querystring: Record<string, unknown> }>('/', {
    schema: {
      operationId: 'listStudents',
      tags,
      summary: 'List students: every record, or with limit a page {items, next}; filter, sort, search; NDJSON with Accept: application/x-ndjson',
      querystring: StudentListQuery,
      'x-rqs': notes({ errors: ['INVALID_QUERY', 'INVALID_CURSOR'], headers: { 200: ['Link', 'X-Total-Count'] } }),
      response: { 200: answer(Type.Union([StudentList, StudentPage]), 'Every student (an array), or with `limit` a page `{items, next}`.') }
    },
    config: { streams: true, rqs: { access: 'read' } }
  }, async (request, reply) => {
    // A serializer of our own leaves the content type to us: JSON unless a vendor type was negotiated.
    if (reply.getHeader('content-type') === undefined) reply.type(JSON_TYPE)
    // Serialised by the schema of the shape sent (one union schema would test every record against both).
    if (request.stream === undefined && Object.keys(request.query).length === 0) {
      if (isRevisioned(store)) return await opts.lists.send(reply, store, ARRAY_FRAME)
      if (await streamsWhole(store)) return await sendJsonList(reply, store, ARRAY_FRAME)
      return reply.serializer(reply.compileSerializationSchema(StudentList)).send(await store.list())
    }
    const list = parseListQuery(STUDENT_QUERY, request.query, request.stream === undefined ? 'page' : 'stream')
    const students = { store, path: collection === '' ? '/' : collection }
    if (request.stream !== undefined) return await sendStream(reply, students, list, request.stream, { line: studentLine, columns: csvColumns(STUDENT_QUERY) })
    const page = await readPage(students, list)
    pageHeaders(reply, page)
    if (list.pageSize === undefined) return reply.serializer(reply.compileSerializationSchema(StudentList)).send(page.items)
    return reply.serializer(reply.compileSerializationSchema(StudentPage)).send(page.next === undefined ? { items: page.items } : { items: page.items, next: page.next })
  })

  app.get<{ Params: IdParams }>('/:id', {
    config: { rqs: { access: 'read' } },
    compress: false, // one record: always small (src/http/compression.ts)
    schema: {
      operationId: 'getStudent',
      tags,
      summary: 'Retrieve a student (ETag; If-None-Match → 304)',
      params: IdParams,
      'x-rqs': notes({ errors: ['INVALID_ID', 'STUDENT_NOT_FOUND'], preconditions: 'read', headers: { 200: ['ETag'] } }),
      response: { 200: answer(Student, 'The student, with its ETag.') }
    }
  }, async (request, reply) => {
    const id = pathId(request.params.id)
    const student = await store.get(id)
    if (student === undefined) throw notFound(id)
    const outcome = conditionalRead(request, reply, studentEtag(student))
    if (outcome === 'not-modified') return reply
    if (outcome === 'failed') throw preconditionFailed(request.headers, `student ${id}`)
    return student
  })

  app.post<{ Body: StudentCreateBody }>('/', {
    compress: false, // one record: always small (src/http/compression.ts)
    config: { rqs: { access: 'write' } },
    schema: {
      operationId: 'createStudent',
      tags,
      summary: 'Create a student (id = number of records held)',
      body: StudentCreateBody,
      'x-rqs': notes({ headers: { 201: ['Location', 'ETag', 'Replaced-Record'] } }),
      response: { 201: answer(Student, 'Created: the stored student; Location names it.') }
    }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const created = ({ outcome, record }: StudentCreated): WriteAnswer => ({
      status: 201,
      headers: { location: `${collection}/${record.id}`, etag: studentEtag(record), ...replacedHeader(outcome, record, `${collection}/`) },
      body: record
    })
    return created(await store.createReporting(request.body, keep(created)))
  }))

  /**
   * Evaluates If-Match / If-None-Match for a write and pins the write to the
   * record they were checked against (compare-and-set in the store). RFC 9110
   * §13.2.1: neither PUT (it never creates here) nor DELETE answers anything
   * but 404 for a missing record, whatever the preconditions say.
   */
  const writeCondition = async (request: FastifyRequest, id: number): Promise<WriteCondition<StoredStudent>> => {
    if (!hasPreconditions(request.headers)) return NO_CONDITION
    const current = await store.get(id)
    if (current === undefined) throw notFound(id)
    const condition = writeConditionFor(request.headers, current, studentEtag)
    if (condition === undefined) throw preconditionFailed(request.headers, `student ${id}`)
    return condition
  }

  const replaced = (result: ReplaceResult<StoredStudent>): WriteAnswer | undefined =>
    result.outcome === 'replaced' ? { status: 200, headers: { etag: studentEtag(result.record) }, body: result.record } : undefined

  const replace = async (request: FastifyRequest, reply: FastifyReply, id: number, body: StudentCreateBody): Promise<FastifyReply> => await answerOnce(request, reply, store, async (keep: Keep) => {
    const condition = await writeCondition(request, id)
    const result = await store.replace({ id, firstName: body.firstName, lastName: body.lastName, age: body.age }, condition, keep(replaced))
    if (result.outcome === 'not-found') throw notFound(id)
    if (result.outcome === 'precondition-failed') throw preconditionFailed(request.headers, `student ${id}`)
    return replaced(result) as WriteAnswer
  })

  app.put<{ Params: IdParams, Body: typeof StudentPutBody.static }>('/:id', {
    config: { rqs: { access: 'write' } },
    compress: false, // one record: always small (src/http/compression.ts)
    schema: {
      operationId: 'replaceStudentById',
      tags,
      summary: 'Replace a student (If-Match for safe updates; never creates)',
      params: IdParams,
      body: StudentPutBody,
      'x-rqs': notes({ errors: ['INVALID_ID', 'ID_MISMATCH', 'STUDENT_NOT_FOUND'], preconditions: 'write', headers: { 200: ['ETag'] } }),
      response: { 200: answer(Student, 'The stored student, with its new ETag.') }
    }
  }, async (request, reply) => {
    const id = pathId(request.params.id)
    if (request.body.id !== undefined && request.body.id !== id) {
      throw new AppError('ID_MISMATCH', `body.id ${request.body.id} differs from the path id ${id}`)
    }
    return replace(request, reply, id, request.body)
  })

  app.put<{ Body: StudentReplaceBody }>('/', {
    compress: false, // one record: always small (src/http/compression.ts)
    config: { rqs: { access: 'write' } },
    schema: {
      operationId: 'replaceStudent',
      tags,
      summary: 'Replace the student named by body.id (never creates)',
      body: StudentReplaceBody,
      'x-rqs': notes({ errors: ['STUDENT_NOT_FOUND'], preconditions: 'write', headers: { 200: ['ETag'] } }),
      response: { 200: answer(Student, 'The stored student, with its new ETag.') }
    }
  }, async (request, reply) => replace(request, reply, request.body.id, request.body))

  app.delete<{ Params: IdParams }>('/:id', {
    config: { rqs: { access: 'write' } },
    compress: false, // one record: always small (src/http/compression.ts)
    schema: {
      operationId: 'deleteStudent',
      tags,
      summary: 'Delete a student (204; If-Match honoured)',
      params: IdParams,
      'x-rqs': notes({ errors: ['INVALID_ID', 'STUDENT_NOT_FOUND'], preconditions: 'write' }),
      response: { 204: noBody('Deleted. No body.') }
    }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const id = pathId(request.params.id)
    const deleted = (result: DeleteResult): WriteAnswer | undefined => result.outcome === 'deleted' ? { status: 204 } : undefined
    const result = await store.delete(id, await writeCondition(request, id), keep(deleted))
    if (result.outcome === 'not-found') throw notFound(id)
    if (result.outcome === 'precondition-failed') throw preconditionFailed(request.headers, `student ${id}`)
    return deleted(result) as WriteAnswer
  }))
}

function pathId (segment: string): number {
  const id = parseNonNegativeInteger(segment)
  if (id < 0) throw invalidId(segment)
  return id
}

export const studentsV2: Representation<StudentRoutesOptions> = {
  version: 2,
  plugin: routesV2,
  errors: problems,
  methods: [['/', ['GET', 'POST', 'PUT']], ['/:id', ['GET', 'PUT', 'DELETE']]]
}
