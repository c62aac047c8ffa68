import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fastifyStatic from '@fastify/static'
import type { StudentStore } from '../../stores/types.js'
import { parseNonNegativeInteger } from '../../http/ids.js'
import { routeOtherMethods } from '../../http/method-not-allowed.js'
import { fail, messages, ok } from './envelope.js'
import { studentErrorHandler } from './errors.js'
import {
  IdParams, MessageEnvelope, StudentCreateBody, StudentEnvelope, StudentListEnvelope, StudentReplaceBody
} from './schema.js'

export interface StudentsServiceOptions {
  store: StudentStore
  assetsDir: string
}

const errorResponses = { '4xx': MessageEnvelope, '5xx': MessageEnvelope }

/**
 * The student records service (spec: "Student records service"). Mount it
 * with a prefix; every answer under that prefix, errors included, is the
 * `{isSuccessful, body}` envelope.
 */
export async function studentsService (app: FastifyInstance, opts: StudentsServiceOptions): Promise<void> {
  const { store } = opts

  app.setErrorHandler(studentErrorHandler)
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(fail(messages.noRoute(request.method, request.url)))
  })

  app.get('/', { schema: { response: { 200: StudentListEnvelope, ...errorResponses } } }, async () => {
    return ok(await store.list())
  })

  app.get<{ Params: IdParams }>('/:id', {
    schema: { params: IdParams, response: { 200: StudentEnvelope, ...errorResponses } }
  }, async (request, reply) => {
    const id = parseNonNegativeInteger(request.params.id)
    if (id < 0) return reply.code(400).send(fail(messages.badId))
    const student = await store.get(id)
    if (student === undefined) return reply.code(404).send(fail(messages.notFound(id)))
    return ok(student)
  })

  app.post<{ Body: StudentCreateBody }>('/', {
    schema: { body: StudentCreateBody, response: { 201: StudentEnvelope, ...errorResponses } }
  }, async (request, reply) => {
    const student = await store.create(request.body)
    return reply.code(201).send(ok(student))
  })

  app.put<{ Body: StudentReplaceBody }>('/', {
    schema: { body: StudentReplaceBody, response: { 200: StudentEnvelope, ...errorResponses } }
  }, async (request, reply) => {
    const result = await store.replace(request.body)
    if (result.outcome !== 'replaced') return reply.code(404).send(fail(messages.notFound(request.body.id)))
    return ok(result.record)
  })

  app.delete<{ Params: IdParams }>('/:id', {
    schema: { params: IdParams, response: { 200: MessageEnvelope, ...errorResponses } }
  }, async (request, reply) => {
    const id = parseNonNegativeInteger(request.params.id)
    if (id < 0) return reply.code(400).send(fail(messages.badId))
    const result = await store.delete(id)
    if (result.outcome !== 'deleted') return reply.code(404).send(fail(messages.notFound(id)))
    return ok(messages.deleted(id))
  })

  // Spec rule 1: the assets route is always present. @fastify/static gives
  // content types, ETag, Last-Modified and range support, and refuses paths
  // that leave the folder; a missing file falls through to the 404 above.
  await app.register(fastifyStatic, {
    root: opts.assetsDir,
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    dotfiles: 'deny',
    wildcard: true
  })

  const methodNotAllowed = (request: FastifyRequest, reply: FastifyReply, allow: string): unknown =>
    reply.code(405).send(fail(messages.methodNotAllowed(request.method, allow)))
  routeOtherMethods(app, '/', ['GET', 'POST', 'PUT'], methodNotAllowed)
  routeOtherMethods(app, '/:id', ['GET', 'DELETE'], methodNotAllowed)
  routeOtherMethods(app, '/assets/*', ['GET', 'HEAD'], methodNotAllowed)
}
