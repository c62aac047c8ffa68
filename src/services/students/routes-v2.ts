import type { FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { answerOnce, type Representation } from '../../http/rest/index.js'
import { callerKey } from '../../domain/index.js'
import { callerOf } from '../../http/security/index.js'
import { problems } from '../../http/errors/index.js'
import { answer } from '../../http/openapi/index.js'
import { bodyCheck, recordRoutes, replaceRecord } from '../records/routes.js'
import { bodyMembers } from '../records/bodies.js'
import type { WirePolicy } from '../records/policy.js'
import type { StudentRoutesOptions } from './options.js'
import { studentNotFound } from './failures.js'
import { STUDENT_IDS } from './ids.js'
import { STUDENT_QUERY, studentLine, StudentListQuery } from './query.js'
import { ADA, Student, StudentCreateBody, StudentReplaceBody } from './schema.js'

const tags = ['students v2']

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
 * ETag / If-Match / If-None-Match like the address book. The record routes
 * every collection shares (../records/routes.ts), with this wire policy.
 */
export const STUDENTS_V2: WirePolicy = {
  resources: '',
  noun: 'student',
  ids: STUDENT_IDS,
  notFound: { code: 'STUDENT_NOT_FOUND', error: (id) => studentNotFound(id as number) },
  list: 'whole',
  // Its base path is shared with v1 (see WirePolicy.aggregates).
  aggregates: false,
  replacedHeader: true,
  schemas: { record: Student, list: Type.Union([StudentList, StudentPage]), array: StudentList, page: StudentPage, querystring: StudentListQuery, model: STUDENT_QUERY, create: StudentCreateBody, put: StudentPutBody },
  line: studentLine,
  tags,
  operations: {
    list: { operationId: 'listStudents', summary: 'List students: every record, or with limit a page {items, next}; filter, sort, search; NDJSON with Accept: application/x-ndjson', answer: 'Every student (an array), or with `limit` a page `{items, next}`.' },
    get: { operationId: 'getStudent', summary: 'Retrieve a student (ETag; If-None-Match → 304)', answer: 'The student, with its ETag.' },
    create: { operationId: 'createStudent', summary: 'Create a student (id = number of records held)', answer: 'Created: the stored student; Location names it.' },
    replace: { operationId: 'replaceStudentById', summary: 'Replace a student (If-Match for safe updates; never creates)', answer: 'The stored student, with its new ETag.' },
    delete: { operationId: 'deleteStudent', summary: 'Delete a student (204; If-Match honoured)', answer: 'Deleted. No body.' }
  },
  // Only JSON bodies here: text/plain is 415, not a string to validate.
  prepare: (app) => { app.removeContentTypeParser('text/plain') }
}

async function routesV2 (app: FastifyInstance, opts: StudentRoutesOptions): Promise<void> {
  const students = recordRoutes(app, STUDENTS_V2, opts)
  const replace = replaceRecord(students)
  const members = bodyMembers(opts.records.declaration)
  // Under rules (docs/rules.md) an Idempotency-Key's answer is kept per caller.
  const perCaller = opts.records.declaration.access !== undefined
  // The spec's PUT names the record in its body: the same replace as PUT /{id}.
  app.put<{ Body: StudentReplaceBody }>('/', {
    compress: false, // one record: always small (src/http/compression.ts)
    config: { rqs: { access: 'write' } },
    // As on every record route of v2: a member that is not a field is refused (FIELD_UNKNOWN), not dropped.
    preValidation: bodyCheck(members),
    schema: {
      operationId: 'replaceStudent',
      tags,
      summary: 'Replace the student named by body.id (never creates)',
      body: StudentReplaceBody,
      'x-rqs': { store: true, errors: perCaller ? ['STUDENT_NOT_FOUND', 'RULE_DENIED'] : ['STUDENT_NOT_FOUND'], preconditions: 'write', headers: { 200: ['ETag'] } },
      response: { 200: answer(Student, 'The stored student, with its new ETag.') }
    }
  }, async (request, reply) => await answerOnce(request, reply, opts.records, async (keep) => await replace(request, keep, request.body.id, request.body), perCaller ? callerKey(callerOf(request)) : undefined))
}

export const studentsV2: Representation<StudentRoutesOptions> = {
  version: 2,
  plugin: routesV2,
  errors: problems,
  methods: [['/', ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']], ['/:id', ['GET', 'PUT', 'PATCH', 'DELETE']]]
}
