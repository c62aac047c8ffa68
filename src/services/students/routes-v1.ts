import type { FastifyInstance } from 'fastify'
import type { Representation } from '../../http/mounts.js'
import type { StudentRoutesOptions } from './options.js'
import { messages, ok } from './envelope.js'
import { invalidId, studentNotFound } from './failures.js'
import { envelopeErrors } from './v1-errors.js'
import { parseNonNegativeInteger } from '../../http/ids.js'
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
  }, async (request, reply) => {
    const student = await store.create(request.body)
    return reply.code(201).send(ok(student))
  })

  app.put<{ Body: StudentReplaceBody }>('/', {
    schema: { tags, summary: 'Replace a student (never creates)', body: StudentReplaceBody, response: { 200: StudentEnvelope, ...errorResponses } }
  }, async (request) => {
    const result = await store.replace(request.body)
    if (result.outcome !== 'replaced') throw studentNotFound(request.body.id)
    return ok(result.record)
  })

  app.delete<{ Params: IdParams }>('/:id', {
    schema: { tags, summary: 'Delete a student', params: IdParams, response: { 200: MessageEnvelope, ...errorResponses } }
  }, async (request) => {
    const id = pathId(request.params.id)
    const result = await store.delete(id)
    if (result.outcome !== 'deleted') throw studentNotFound(id)
    return ok(messages.deleted(id))
  })
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
