import type { FastifyInstance } from 'fastify'
import type { Representation } from '../../http/mounts.js'
import type { StudentRoutesOptions } from './options.js'
import { messages, ok } from './envelope.js'
import { invalidId, studentNotFound } from './failures.js'
import { envelopeErrors } from './v1-errors.js'
import { parseNonNegativeInteger } from '../../http/ids.js'
import { parseListQuery } from '../../http/query/parse.js'
import { pageHeaders, readPage, sendNdjson } from '../../http/query/respond.js'
import { STUDENT_QUERY, studentLine, StudentListQuery } from './query.js'
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
  const collection = { store, path: app.prefix === '' ? '/' : app.prefix }

  app.get<{ Querystring: Record<string, unknown> }>('/', {
    schema: {
      tags,
      summary: 'List students (filter, sort, search; paged with limit; NDJSON with Accept: application/x-ndjson)',
      querystring: StudentListQuery,
      response: { 200: StudentListEnvelope, ...errorResponses }
    },
    config: { streams: true }
  }, async (request, reply) => {
    // No parameters: the spec's answer, every record in the envelope.
    if (!request.ndjson && Object.keys(request.query).length === 0) return ok(await store.list())
    const list = parseListQuery(STUDENT_QUERY, request.query)
    if (request.ndjson) return await sendNdjson(reply, collection, list, studentLine)
    const page = await readPage(collection, list)
    pageHeaders(reply, page)
    return ok(page.items)
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
