// Baseline: Express 5 as a typical hand-written service: express.json() for bodies, a check of
// the fields, records in Maps, res.json() for answers. What the REST services would otherwise run on.
import express from 'express'
import { ADDRESS_INPUT, STUDENT_INPUT, announce, exitOnSignal, seedCount } from './shared.js'

interface Student { id: number, firstName: string, lastName: string, age: number }
interface Address { id: number, name: string, city: string, postalCode: string }

const students = new Map<number, Student>()
for (let id = 0; id < seedCount(); id++) students.set(id, { id, ...STUDENT_INPUT })
const addresses = new Map<number, Address>([[1, { id: 1, ...ADDRESS_INPUT }]])
let nextAddressId = 2

const validStudent = (b: Record<string, unknown>): boolean =>
  typeof b.firstName === 'string' && typeof b.lastName === 'string' && Number.isInteger(b.age) && (b.age as number) >= 0
const validAddress = (b: Record<string, unknown>): boolean =>
  typeof b.name === 'string' && typeof b.city === 'string' && typeof b.postalCode === 'string'

const app = express()
app.disable('x-powered-by')
app.disable('etag')
app.use(express.json())

app.get('/students', (_req, res) => { res.json({ isSuccessful: true, body: [...students.values()] }) })
app.get('/students/:id', (req, res) => {
  const student = students.get(Number(req.params.id))
  if (student === undefined) { res.status(404).json({ isSuccessful: false, body: 'not found' }); return }
  res.json({ isSuccessful: true, body: student })
})
app.post('/students', (req, res) => {
  const b = req.body as Record<string, unknown>
  if (!validStudent(b)) { res.status(400).json({ isSuccessful: false, body: 'invalid' }); return }
  const student = { id: students.size, firstName: b.firstName as string, lastName: b.lastName as string, age: b.age as number }
  students.set(student.id, student)
  res.status(201).json({ isSuccessful: true, body: student })
})
app.put('/students', (req, res) => {
  const b = req.body as Record<string, unknown>
  if (!validStudent(b) || !Number.isInteger(b.id)) { res.status(400).json({ isSuccessful: false, body: 'invalid' }); return }
  if (!students.has(b.id as number)) { res.status(404).json({ isSuccessful: false, body: 'not found' }); return }
  const student = { id: b.id as number, firstName: b.firstName as string, lastName: b.lastName as string, age: b.age as number }
  students.set(student.id, student)
  res.json({ isSuccessful: true, body: student })
})
app.get('/addresses/:id', (req, res) => {
  const address = addresses.get(Number(req.params.id))
  if (address === undefined) { res.status(404).end(); return }
  res.json(address)
})
app.post('/addresses', (req, res) => {
  const b = req.body as Record<string, unknown>
  if (!validAddress(b)) { res.status(400).end(); return }
  const address = { id: nextAddressId++, name: b.name as string, city: b.city as string, postalCode: b.postalCode as string }
  addresses.set(address.id, address)
  res.status(201).location(`/addresses/${address.id}`).json(address)
})
app.put('/addresses/:id', (req, res) => {
  const b = req.body as Record<string, unknown>
  if (!validAddress(b)) { res.status(400).end(); return }
  const id = Number(req.params.id)
  const current = addresses.get(id)
  const address = current === undefined
    ? { id, name: b.name as string, city: b.city as string, postalCode: b.postalCode as string }
    : { ...current, city: b.city as string, postalCode: b.postalCode as string }
  addresses.set(id, address)
  res.status(current === undefined ? 201 : 200).json(address)
})

const server = app.listen(0, '127.0.0.1', () => announce(server))
exitOnSignal(() => { server.close() })
