// Baseline: Fastify alone (no logging, no hooks) with a response schema: the framework's own ceiling.
import Fastify from 'fastify'
import { STUDENT, announce } from './shared.js'

const app = Fastify({ logger: false })
const student = { type: 'object', properties: { id: { type: 'integer' }, firstName: { type: 'string' }, lastName: { type: 'string' }, age: { type: 'integer' } } }
app.get<{ Params: { id: string } }>('/students/:id', {
  schema: { response: { 200: { type: 'object', properties: { isSuccessful: { type: 'boolean' }, body: student } } } }
}, async (request, reply) => {
  if (Number(request.params.id) !== 0) return reply.code(404).send()
  return { isSuccessful: true, body: STUDENT }
})
await app.listen({ port: 0, host: '127.0.0.1' })
announce(app.server)
