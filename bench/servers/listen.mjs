// @ts-check
// The end both rqs bench servers share: stop on SIGTERM/SIGINT, listen on a free loopback port, then
// print `MEMORY {...}` after a GC (with --expose-gc) and `LISTENING <port>` for the runner to read.
import process from 'node:process'

/**
 * @param {import('fastify').FastifyInstance} app
 * @param {() => Promise<unknown>} [closeMore] what to close after the server (stores opened outside it)
 * @param {(port: number) => Promise<void>} [beforeReport] run once listening, before the report (setup over HTTP)
 */
export async function listenAndReport (app, closeMore = async () => {}, beforeReport = async () => {}) {
  const stop = () => {
    app.close().then(closeMore).finally(() => process.exit(0))
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  await beforeReport(address.port)

  const gc = /** @type {{ gc?: () => void }} */ (globalThis).gc
  gc?.()
  gc?.()
  const m = process.memoryUsage()
  process.stdout.write(`MEMORY ${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed })}\n`)
  process.stdout.write(`LISTENING ${address.port}\n`)
}
