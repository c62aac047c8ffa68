import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { NO_CONDITION } from '../../stores/records.js'
import type { Student as StoredStudent, WriteCondition } from '../../stores/types.js'
import { parseNonNegativeInteger } from '../../http/ids.js'
import { conditionalRead, hasPreconditions, strongEtag, writeConditionFor } from '../../http/conditional.js'
import { AppError } from '../../http/errors/app-error.js'
import { problems } from '../../http/errors/handler.js'
import type { Representation } from '../../http/mounts.js'
import { parseListQuery } from '../../http/query/parse.js'
import { pageHeaders, readPage, sendNdjson } from '../../http/query/respond.js'
import type { StudentRoutesOptions } from './options.js'
import { invalidId, preconditionFailed, studentNotFound as notFound } from './failures.js'
import { STUDENT_QUERY, studentLine, StudentListQuery } from './query.js'
import { IdParams, Student, StudentCreateBody, StudentReplaceBody } from './schema.js'

const tags = ['students v2']

const StudentList = Type.Array(Student)
/** A page, when the client asked for one (`limit`): `next` only when another page follows. */
const StudentPage = Type.Object({ items: StudentList, next: Type.Optional(Type.String()) }, { additionalProperties: false })

/** PUT /{id} body: the id comes from the path; a body id, if sent, must agree. */
const StudentPutBody = Type.Object(
  { id: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })), firstName: StudentCreateBody.properties.firstName, lastName: StudentCreateBody.properties.lastName, age: StudentCreateBody.properties.age },
  { additionalProperties: false }
)

/** A strong ETag for a student's representation: any change of a field changes it. */
export function studentEtag (s: StoredStudent): string {
  return strongEtag(`${s.id}\u0000${s.firstName}\u0000${s.lastName}\u0000${s.age}`)
}

/**
 * Version 2 of the student records service: the same records and id rule,
 * restructured (hence a new media type): plain Student bodies, 201 with
 * Location, 204 on delete, RFC 9457 problem details for every error, and
 * ETag / If-Match / If-None-Match like the address book.
 */
async function routesV2 (app: FastifyInstance, opts: StudentRoutesOptions): Promise<void> {
  const { store } = opts
  const collection = app.prefix === '' ? '' : app.prefix
  // Only JSON bodies here: text/plain is 415, not a string to validate.
  app.removeContentTypeParser('text/plain')

  app.get<{ Querystring: Record<string, unknown> }>('/', {
    schema: {
      tags,
      summary: 'List students: every record, or with limit a page {items, next}; filter, sort, search; NDJSON with Accept: application/x-ndjson',
      querystring: StudentListQuery,
      response: { 200: Type.Union([StudentList, StudentPage]) }
    },
    config: { streams: true }
  }, async (request, reply) => {
    // Serialised by the schema of the shape sent (one union schema would test every record against both).
    if (!request.ndjson && Object.keys(request.query).length === 0) {
      return reply.serializer(reply.compileSerializationSchema(StudentList)).send(await store.list())
    }
    const list = parseListQuery(STUDENT_QUERY, request.query)
    const students = { store, path: collection === '' ? '/' : collection }
    if (request.ndjson) return await sendNdjson(reply, students, list, studentLine)
    const page = await readPage(students, list)
    pageHeaders(reply, page)
    if (list.pageSize === undefined) return reply.serializer(reply.compileSerializationSchema(StudentList)).send(page.items)
    return reply.serializer(reply.compileSerializationSchema(StudentPage)).send(page.next === undefined ? { items: page.items } : { items: page.items, next: page.next })
  })

  app.get<{ Params: IdParams }>('/:id', {
    schema: { tags, summary: 'Retrieve a student (ETag; If-None-Match → 304)', params: IdParams, response: { 200: Student } }
  }, async (request, reply) => {
    const id = pathId(request.params.id)
    const student = await store.get(id)
    if (student === undefined) throw notFound(id)
    const outcome = conditionalRead(request, reply, studentEtag(student))
    if (outcome === 'not-modified') return reply
    if (outcome === 'failed') throw preconditionFailed(id)
    return student
  })

  app.post<{ Body: StudentCreateBody }>('/', {
    schema: { tags, summary: 'Create a student (id = number of records held)', body: StudentCreateBody, response: { 201: Student } }
  }, async (request, reply) => {
    const student = await store.create(request.body)
    reply.code(201).header('location', `${collection}/${student.id}`).header('etag', studentEtag(student))
    return student
  })

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
    if (condition === undefined) throw preconditionFailed(id)
    return condition
  }

  const replace = async (request: FastifyRequest, reply: FastifyReply, id: number, body: StudentCreateBody): Promise<StoredStudent> => {
    const condition = await writeCondition(request, id)
    const result = await store.replace({ id, firstName: body.firstName, lastName: body.lastName, age: body.age }, condition)
    if (result.outcome === 'not-found') throw notFound(id)
    if (result.outcome === 'precondition-failed') throw preconditionFailed(id)
    reply.header('etag', studentEtag(result.record))
    return result.record
  }

  app.put<{ Params: IdParams, Body: typeof StudentPutBody.static }>('/:id', {
    schema: { tags, summary: 'Replace a student (If-Match for safe updates; never creates)', params: IdParams, body: StudentPutBody, response: { 200: Student } }
  }, async (request, reply) => {
    const id = pathId(request.params.id)
    if (request.body.id !== undefined && request.body.id !== id) {
      throw new AppError('ID_MISMATCH', `body.id ${request.body.id} differs from the path id ${id}`)
    }
    return replace(request, reply, id, request.body)
  })

  app.put<{ Body: StudentReplaceBody }>('/', {
    schema: { tags, summary: 'Replace the student named by body.id (as in v1)', body: StudentReplaceBody, response: { 200: Student } }
  }, async (request, reply) => replace(request, reply, request.body.id, request.body))

  app.delete<{ Params: IdParams }>('/:id', {
    schema: { tags, summary: 'Delete a student (204; If-Match honoured)', params: IdParams }
  }, async (request, reply) => {
    const id = pathId(request.params.id)
    const result = await store.delete(id, await writeCondition(request, id))
    if (result.outcome === 'not-found') throw notFound(id)
    if (result.outcome === 'precondition-failed') throw preconditionFailed(id)
    return reply.code(204).send()
  })
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
