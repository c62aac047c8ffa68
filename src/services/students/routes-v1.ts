import type { FastifyInstance } from 'fastify'
import type { Representation } from '../../http/mounts.js'
import type { StudentRoutesOptions } from './options.js'
import { messages, ok } from './envelope.js'
import { invalidId, studentNotFound } from './failures.js'
import { envelopeErrors } from './v1-errors.js'
import { parseNonNegativeInteger } from '../../http/ids.js'
import { answerOnce, type WriteAnswer } from '../../http/idempotency.js'
import type { DeleteResult, ReplaceResult, Student } from '../../stores/types.js'
import {
  IdParams, MessageEnvelope, StudentCreateBody, StudentEnvelope, StudentListEnvelope, StudentReplaceBody
} from './schema.js'

const errorResponses = { '4xx': MessageEnvelope, '5xx': MessageEnvelope }
const tags = ['students v1 (envelope)']

/**
 * Version 1: the spec's student records service, exactly. Every answer,
 * errors included, is the `{isSuccessful, body}` envelope (./v1-errors.ts
 * words the errors the routes throw).
 */
async function routesV1 (app: FastifyInstance, opts: StudentRoutesOptions): Promise<void> {
  const { store } = opts

  app.get('/', { schema: { tags, summary: 'List students', response: { 200: StudentListEnvelope, ...errorResponses } } }, async () => {
    return ok(await store.list())
  })

  app.get<{ Params: IdParams }>('/:id', {
    schema: { tags, summary: 'Retrieve a student', params: IdParams, response: { 200: StudentEnvelope, ...errorResponses } }
  }, async (request) => {
    const id = pathId(request.params.id)
    const student = await store.get(id)
    if (student === undefined) throw studentNotFound(id)
    return ok(student)
  })

  app.post<{ Body: StudentCreateBody }>('/', {
    schema: { tags, summary: 'Create a student (id = number of records held)', body: StudentCreateBody, response: { 201: StudentEnvelope, ...errorResponses } }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const created = (student: Student): WriteAnswer => ({ status: 201, body: ok(student) })
    return created(await store.create(request.body, keep(created)))
  }))

  app.put<{ Body: StudentReplaceBody }>('/', {
    schema: { tags, summary: 'Replace a student (never creates)', body: StudentReplaceBody, response: { 200: StudentEnvelope, ...errorResponses } }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const replaced = (result: ReplaceResult<Student>): WriteAnswer | undefined => result.outcome === 'replaced' ? { status: 200, body: ok(result.record) } : undefined
    const result = await store.replace(request.body, undefined, keep(replaced))
    const answer = replaced(result)
    if (answer === undefined) throw studentNotFound(request.body.id)
    return answer
  }))

  app.delete<{ Params: IdParams }>('/:id', {
    schema: { tags, summary: 'Delete a student', params: IdParams, response: { 200: MessageEnvelope, ...errorResponses } }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const id = pathId(request.params.id)
    const deleted = (result: DeleteResult): WriteAnswer | undefined => result.outcome === 'deleted' ? { status: 200, body: ok(messages.deleted(id)) } : undefined
    const answer = deleted(await store.delete(id, undefined, keep(deleted)))
    if (answer === undefined) throw studentNotFound(id)
    return answer
  }))
}

function pathId (segment: string): number {
  const id = parseNonNegativeInteger(segment)
  if (id < 0) throw invalidId(segment)
  return id
}

export const studentsV1: Representation<StudentRoutesOptions> = {
  version: 1,
  plugin: routesV1,
  errors: envelopeErrors,
  methods: [['/', ['GET', 'POST', 'PUT']], ['/:id', ['GET', 'DELETE']]]
}
