// Baseline: bare node:http answering GET /students/0 with the same bytes rqs sends.
import { createServer } from 'node:http'
import { STUDENT_BODY, announce } from './shared.js'

const body = Buffer.from(STUDENT_BODY)
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/students/0') {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length })
    res.end(body)
    return
  }
  res.writeHead(404).end()
})
server.listen(0, '127.0.0.1', () => announce(server))
