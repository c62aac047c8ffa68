import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { parseNonNegativeInteger } from '../../http/ids.js'
import type { Representation } from '../../http/versioned-mount.js'
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
  }, async (request, reply) => {
    const student = await store.create(request.body)
    return reply.code(201).send(ok(student))
  })

  app.put<{ Body: StudentReplaceBody }>('/', {
    schema: { tags, summary: 'Replace a student (never creates)', body: StudentReplaceBody, response: { 200: StudentEnvelope, ...errorResponses } }
  }, async (request, reply) => {
    const result = await store.replace(request.body)
    if (result.outcome !== 'replaced') return reply.code(404).send(fail(messages.notFound(request.body.id)))
    return ok(result.record)
  })

  app.delete<{ Params: IdParams }>('/:id', {
    schema: { tags, summary: 'Delete a student', params: IdParams, response: { 200: MessageEnvelope, ...errorResponses } }
  }, async (request, reply) => {
    const id = parseNonNegativeInteger(request.params.id)
    if (id < 0) return reply.code(400).send(fail(messages.badId))
    const result = await store.delete(id)
    if (result.outcome !== 'deleted') return reply.code(404).send(fail(messages.notFound(id)))
    return ok(messages.deleted(id))
  })
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
