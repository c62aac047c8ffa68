/**
 * How much server memory a client holds that asks for a whole list as NDJSON
 * and never reads it (issue 19, item 12). The server runs in this process on
 * the memory store with N students; C such clients connect over loopback; the
 * live heap (after a full GC: heapUsed + external + arrayBuffers) is compared
 * before and after, per client. Bounded; loopback only.
 *
 *   node --expose-gc --import tsx bench/stalled-streams.ts [--records 200000] [--clients 20]
 */
import { connect, type Socket } from 'node:net'
import { parseArgs } from 'node:util'
import { makeConfig } from '../src/options.js'
import { buildServer } from '../src/server.js'
import { memoryStores } from '../test/helpers/built-ins.js'
import { STREAM_BATCH_SIZE } from '../src/domain/index.js'

const { values } = parseArgs({ options: { records: { type: 'string', default: '200000' }, clients: { type: 'string', default: '20' } } })
const RECORDS = Number(values.records)
const CLIENTS = Number(values.clients)
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('run with node --expose-gc')

const stores = memoryStores()
await stores.students.importAll((async function * () {
  yield Array.from({ length: RECORDS }, (_, i) => ({ id: i, firstName: `First${i % 500}`, lastName: `Last${(i * 7919) % 20011}son`, age: i % 90 }))
})())
const app = await buildServer(makeConfig({ logLevel: 'silent', port: 0 }), { stores })
await app.listen({ port: 0, host: '127.0.0.1' })
const port = (app.server.address() as { port: number }).port

const live = (): number => {
  gc()
  const m = process.memoryUsage()
  return m.heapUsed + m.external + m.arrayBuffers
}
const settle = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

await settle(500)
const before = live()
const sockets: Socket[] = []
for (let i = 0; i < CLIENTS; i++) {
  const socket = connect(port, '127.0.0.1')
  socket.on('error', () => {})
  socket.write('GET /v2/students HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/x-ndjson\r\n\r\n')
  socket.pause()
  sockets.push(socket)
}
await settle(3000)
const after = live()
// What the stalled clients' side of loopback holds is in this process too: read nothing, count only the server's share.
process.stdout.write(`${RECORDS} students, batches of ${STREAM_BATCH_SIZE}: ${CLIENTS} NDJSON clients that do not read hold ` +
  `${((after - before) / CLIENTS / 1024).toFixed(0)} KiB of live heap each (${((after - before) / 1024 / 1024).toFixed(1)} MiB in all)\n`)
for (const socket of sockets) socket.destroy()
await app.close()
