// rqs in its default configuration (memory store, info logging, no access log), seeded with one student and one address.
import { buildServer } from '../../src/server.js'
import { defaultConfig } from '../../src/config.js'
import { ADDRESS, STUDENT, announce } from './shared.js'

const config = { ...defaultConfig(), port: 0 }
const app = await buildServer(config)
await app.listen({ port: 0, host: '127.0.0.1' })
const res = await fetch(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/students`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ firstName: STUDENT.firstName, lastName: STUDENT.lastName, age: STUDENT.age })
})
if (res.status !== 201) throw new Error(`seeding failed: ${res.status}`)
const addr = await fetch(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/addresses`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(ADDRESS)
})
if (addr.status !== 201) throw new Error(`seeding failed: ${addr.status}`)
announce(app.server)
