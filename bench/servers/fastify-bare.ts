// Baseline: Fastify 5 with nothing added, the framework's own ceiling for the GET and POST rows.
// One GET route (the same parametric route rqs has) with a response schema, so fast-json-stringify
// writes the answer, and an async handler returning the record; one POST route answering the body
// Fastify's default JSON parser read, with an id, 201, in the students envelope (the node:http JSON
// echo's work) through a response schema too. No logger, hooks, record lookup, body validation or
// other routes: what rqs and the hand-written service (fastify.ts) add is what this leaves out.
// BENCH_RQS_HEADERS=1: the same, and on every answer the four headers rqs sends by default besides
// Fastify's (a fresh X-Request-Id from rqs's own generator, the two protective headers, Vary: Accept),
// set in the handler at once: what those headers cost the framework and Node, without the rest of rqs.
import Fastify, { type FastifyReply } from 'fastify'
import { freshRequestId } from '../../src/http/transport/request-id.js'
import { RQS_HEADERS, STUDENT, announce, exitOnSignal } from './shared.js'

const studentEnvelope = {
  type: 'object',
  properties: {
    isSuccessful: { type: 'boolean' },
    body: { type: 'object', properties: { id: { type: 'integer' }, firstName: { type: 'string' }, lastName: { type: 'string' }, age: { type: 'integer' } } }
  }
}
const answer = { isSuccessful: true, body: STUDENT }
let nextId = 1_000_000

const withHeaders = process.env.BENCH_RQS_HEADERS === '1'
/** rqs's headers on `reply`, when asked for (see above). */
function rqsHeaders (reply: FastifyReply): void {
  if (!withHeaders) return
  reply.headers({ 'x-request-id': freshRequestId(), ...RQS_HEADERS })
}

const app = Fastify({ logger: false })
app.get('/students/:id', { schema: { response: { 200: studentEnvelope } } }, async (_request, reply) => {
  rqsHeaders(reply)
  return answer
})
app.post('/students', { schema: { response: { 201: studentEnvelope } } }, async (request, reply) => {
  rqsHeaders(reply)
  reply.code(201)
  return { isSuccessful: true, body: { ...(request.body as object), id: nextId++ } }
})

exitOnSignal(() => app.close())
await app.listen({ port: 0, host: '127.0.0.1' })
announce(app.server)
