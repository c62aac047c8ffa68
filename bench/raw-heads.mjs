// The raw bytes of a fixed set of requests (reads, errors, a create, HEAD, a CORS preflight, streams, pages),
// ids and dates masked, to diff the answers of two builds: a change of the request's frame must leave them equal.
//   node bench/raw-heads.mjs <port>   (a server from bench/servers/rqs.mjs, seeded as the bench seeds it)
import { Buffer } from 'node:buffer'
import net from 'node:net'
import process from 'node:process'
const port = +process.argv[2]
const post = (body, type = 'application/json') => `POST /students HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
const get = (path, extra = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}Connection: close\r\n\r\n`
const reqs = [
  get('/students/0'), get('/students/0', 'X-Request-Id: abc-123\r\n'), get('/students/0', 'Accept: application/vnd.rqs.v1+json\r\n'),
  get('/students/0', 'Accept: text/html\r\n'), get('/students/0', 'Origin: http://x.example\r\n'), get('/students/999'), get('/nope'),
  get('/students?limit=2'), get('/v2/students/0'), get('/addresses/1'), get('/'), get('/healthz'), get('/errors'),
  'GET /students/0 HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n', 'DELETE /students HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
  post('{"firstName":"Ada","lastName":"Lovelace","age":36}'), post('{x}'), post('{"firstName":1}'), get('/students/%zz'), get('/students/0', 'Accept: application/x-ndjson\r\n'),
  'HEAD /students/0 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n', 'OPTIONS /students/0 HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://x.example\r\nAccess-Control-Request-Method: GET\r\nConnection: close\r\n\r\n'
]
for (const r of reqs) {
  const text = await new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(r)); const chunks = []
    s.on('data', (c) => chunks.push(c)); s.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')))
  })
  process.stdout.write(text.replace(/^(x-request-id|date): .*$/gim, '$1: X').replace(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g, 'UUID').replace(/"(createdAt|updatedAt|at)":"[^"]*"/g, '"$1":T') + '\n======\n')
}
