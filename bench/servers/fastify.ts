// Baseline: Fastify 5 as a hand-written service would use it: no logger, no hooks, JSON schemas for
// bodies and answers (so Fastify validates with Ajv and serialises with fast-json-stringify), records
// in Maps, every route of the REST rows. "fastify, hand-written service" in the table (it was
// "fastify alone"); the framework's own ceiling, with nothing added, is fastify-bare.ts.
import Fastify from 'fastify'
import { ADDRESS_INPUT, STUDENT_INPUT, announce, exitOnSignal, seedCount } from './shared.js'

interface Student { id: number, firstName: string, lastName: string, age: number }
interface Address { id: number, name: string, city: string, postalCode: string }

const students = new Map<number, Student>()
for (let id = 0; id < seedCount(); id++) students.set(id, { id, ...STUDENT_INPUT })
const addresses = new Map<number, Address>([[1, { id: 1, ...ADDRESS_INPUT }]])
let nextAddressId = 2

const studentInput = {
  type: 'object',
  required: ['firstName', 'lastName', 'age'],
  properties: { firstName: { type: 'string' }, lastName: { type: 'string' }, age: { type: 'integer', minimum: 0 } }
}
const studentSchema = { type: 'object', properties: { id: { type: 'integer' }, firstName: { type: 'string' }, lastName: { type: 'string' }, age: { type: 'integer' } } }
const envelope = (body: object): object => ({ type: 'object', properties: { isSuccessful: { type: 'boolean' }, body } })
const addressInput = {
  type: 'object',
  required: ['name', 'city', 'postalCode'],
  properties: { name: { type: 'string' }, city: { type: 'string' }, postalCode: { type: 'string' } }
}
const addressSchema = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, city: { type: 'string' }, postalCode: { type: 'string' } } }

const app = Fastify({ logger: false })

app.get('/students', { schema: { response: { 200: envelope({ type: 'array', items: studentSchema }) } } }, async () => {
  return { isSuccessful: true, body: [...students.values()] }
})
app.get<{ Params: { id: string } }>('/students/:id', { schema: { response: { 200: envelope(studentSchema) } } }, async (request, reply) => {
  const student = students.get(Number(request.params.id))
  if (student === undefined) return reply.code(404).send({ isSuccessful: false, body: 'not found' })
  return { isSuccessful: true, body: student }
})
app.post<{ Body: Omit<Student, 'id'> }>('/students', { schema: { body: studentInput, response: { 201: envelope(studentSchema) } } }, async (request, reply) => {
  const student = { id: students.size, ...request.body }
  students.set(student.id, student)
  return reply.code(201).send({ isSuccessful: true, body: student })
})
app.put<{ Body: Student }>('/students', {
  schema: { body: { ...studentInput, required: ['id', ...studentInput.required], properties: { id: { type: 'integer' }, ...studentInput.properties } }, response: { 200: envelope(studentSchema) } }
}, async (request, reply) => {
  if (!students.has(request.body.id)) return reply.code(404).send({ isSuccessful: false, body: 'not found' })
  const student = { ...request.body }
  students.set(student.id, student)
  return { isSuccessful: true, body: student }
})
app.get<{ Params: { id: string } }>('/addresses/:id', { schema: { response: { 200: addressSchema } } }, async (request, reply) => {
  const address = addresses.get(Number(request.params.id))
  if (address === undefined) return reply.code(404).send()
  return address
})
app.post<{ Body: Omit<Address, 'id'> }>('/addresses', { schema: { body: addressInput, response: { 201: addressSchema } } }, async (request, reply) => {
  const address = { id: nextAddressId++, ...request.body }
  addresses.set(address.id, address)
  return reply.code(201).header('location', `/addresses/${address.id}`).send(address)
})
app.put<{ Params: { id: string }, Body: Omit<Address, 'id'> }>('/addresses/:id', { schema: { body: addressInput, response: { 200: addressSchema, 201: addressSchema } } }, async (request, reply) => {
  const id = Number(request.params.id)
  const current = addresses.get(id)
  const address = current === undefined ? { id, ...request.body } : { ...current, city: request.body.city, postalCode: request.body.postalCode }
  addresses.set(id, address)
  return reply.code(current === undefined ? 201 : 200).send(address)
})

exitOnSignal(() => app.close())
await app.listen({ port: 0, host: '127.0.0.1' })
announce(app.server)
