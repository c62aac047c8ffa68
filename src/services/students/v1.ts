import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { parseNonNegativeInteger } from '../../http/ids.js'
import type { Representation } from '../../http/versioned-mount.js'
import { answerOnce, type WriteAnswer } from '../../http/idempotency.js'
import type { DeleteResult, ReplaceResult, Student } from '../../stores/types.js'
import type { StudentsServiceOptions } from './options.js'
import { fail, messages, ok } from './envelope.js'
import { studentErrorHandler } from './errors.js'
import {
  IdParams, MessageEnvelope, StudentCreateBody, StudentEnvelope, StudentListEnvelope, StudentReplaceBody
} from './schema.js'

const errorResponses = { '4xx': MessageEnvelope, '5xx': MessageEnvelope }
const tags = ['students v1 (envelope)']

/**
 * Version 1: the spec's student records service, exactly. Every answer,
 * errors included, is the `{isSuccessful, body}` envelope.
 */
async function routesV1 (app: FastifyInstance, opts: StudentsServiceOptions): Promise<void> {
  const { store } = opts

  app.get('/', { schema: { tags, summary: 'List students', response: { 200: StudentListEnvelope, ...errorResponses } } }, async () => {
    return ok(await store.list())
  })

  app.get<{ Params: IdParams }>('/:id', {
    schema: { tags, summary: 'Retrieve a student', params: IdParams, response: { 200: StudentEnvelope, ...errorResponses } }
  }, async (request, reply) => {
    const id = parseNonNegativeInteger(request.params.id)
    if (id < 0) return reply.code(400).send(fail(messages.badId))
    const student = await store.get(id)
    if (student === undefined) return reply.code(404).send(fail(messages.notFound(id)))
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
    return replaced(result) ?? { status: 404, body: fail(messages.notFound(request.body.id)) }
  }))

  app.delete<{ Params: IdParams }>('/:id', {
    schema: { tags, summary: 'Delete a student', params: IdParams, response: { 200: MessageEnvelope, ...errorResponses } }
  }, async (request, reply) => await answerOnce(request, reply, store, async (keep) => {
    const id = parseNonNegativeInteger(request.params.id)
    if (id < 0) return { status: 400, body: fail(messages.badId) }
    const deleted = (result: DeleteResult): WriteAnswer | undefined => result.outcome === 'deleted' ? { status: 200, body: ok(messages.deleted(id)) } : undefined
    const result = await store.delete(id, undefined, keep(deleted))
    return deleted(result) ?? { status: 404, body: fail(messages.notFound(id)) }
  }))
}

export const studentsV1: Representation<StudentsServiceOptions> = {
  version: 1,
  plugin: routesV1,
  errorHandler: studentErrorHandler,
  methods: [['/', ['GET', 'POST', 'PUT']], ['/:id', ['GET', 'DELETE']]],
  notFound: (request: FastifyRequest, reply: FastifyReply) => reply.code(404).send(fail(messages.noRoute(request.method, request.url))),
  methodNotAllowed: (request: FastifyRequest, reply: FastifyReply, allow: string) =>
    reply.code(405).send(fail(messages.methodNotAllowed(request.method, allow)))
}
