// Baseline: Fastify 5 with nothing added, the framework's own ceiling for the GET and POST rows.
// One GET route (the same parametric route rqs has) with a response schema, so fast-json-stringify
// writes the answer, and an async handler returning the record; one POST route answering the body
// Fastify's default JSON parser read, with an id, 201, in the students envelope (the node:http JSON
// echo's work) through a response schema too. No logger, hooks, record lookup, body validation or
// other routes: what rqs and the hand-written service (fastify.ts) add is what this leaves out.
import Fastify from 'fastify'
import { STUDENT, announce, exitOnSignal } from './shared.js'

const studentEnvelope = {
  type: 'object',
  properties: {
    isSuccessful: { type: 'boolean' },
    body: { type: 'object', properties: { id: { type: 'integer' }, firstName: { type: 'string' }, lastName: { type: 'string' }, age: { type: 'integer' } } }
  }
}
const answer = { isSuccessful: true, body: STUDENT }
let nextId = 1_000_000

const app = Fastify({ logger: false })
app.get('/students/:id', { schema: { response: { 200: studentEnvelope } } }, async () => answer)
app.post('/students', { schema: { response: { 201: studentEnvelope } } }, async (request, reply) => {
  reply.code(201)
  return { isSuccessful: true, body: { ...(request.body as object), id: nextId++ } }
})

exitOnSignal(() => app.close())
await app.listen({ port: 0, host: '127.0.0.1' })
announce(app.server)
