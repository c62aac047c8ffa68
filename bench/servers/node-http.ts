// Baseline: bare node:http answering one path with fixed bytes — by default the bytes rqs sends
// for GET /students/0; BENCH_PATH / BENCH_BODY / BENCH_TYPE set another path and answer.
import { createServer } from 'node:http'
import { STUDENT_BODY, announce } from './shared.js'

const path = process.env.BENCH_PATH ?? '/students/0'
const body = Buffer.from(process.env.BENCH_BODY ?? STUDENT_BODY)
const type = process.env.BENCH_TYPE ?? 'application/json; charset=utf-8'
const server = createServer((req, res) => {
  if (req.url === path) {
    // Drain a request body (POST /graphql) before answering, as a real server must.
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': type, 'content-length': body.length })
      res.end(body)
    })
    return
  }
  res.writeHead(404).end()
})
server.listen(0, '127.0.0.1', () => announce(server))
