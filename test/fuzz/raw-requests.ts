import fc from 'fast-check'
import { body as bodyArbitrary } from './requests.js'

/**
 * Requests at the byte level, for what an HTTP client library refuses to
 * send: broken request lines, illegal header bytes, conflicting lengths,
 * bad chunking, oversized headers, CONNECT and absolute targets.
 */
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'CONNECT', 'TRACE', 'get', 'G E T', 'PRI', '', 'ÄÖ', 'POST\u0000', 'PROPFIND', 'X'.repeat(40)]
const TARGETS = [
  '/students', '/students/7', '/addresses', '/addresses/1', '/graphql', '/graphql?query=%7B%20albums%20%7B%20title%20%7D%20%7D',
  '/v2/students', '/errors', '/docs/', '/students/assets/index.html', '*', 'http://evil.example/students', '//students',
  '/students/\u0000', '/stud\u00e9nts', '/%', 'example.com:443', '/students/..%2f..%2fpackage.json', '/' + 'a'.repeat(20_000),
  '/students?\u00ff=\u00fe', '/students#frag', ''
]
const VERSIONS = ['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/1.1x', '', 'http/1.1']
const HEADER_LINES = [
  'Host: x', 'Host: a\r\nHost: b', 'Host: evil.example', 'Content-Type: application/json', 'Content-Type: text/plain',
  'Accept: application/vnd.rqs.v2+json', 'Content-Length: 5', 'Content-Length: -1', 'Content-Length: 1, 2',
  'Content-Length: 99999999999999999999', 'Content-Length: 3\r\nContent-Length: 4', 'Transfer-Encoding: chunked',
  'Transfer-Encoding: gzip', 'Transfer-Encoding: chunked\r\nContent-Length: 3', ' folded: continuation', 'X-Nul: a\u0000b',
  'X-Latin: \u00ff\u00fe', 'Bad Header: x', 'X-Long: ' + 'a'.repeat(20_000), 'Expect: 100-continue', 'Upgrade: websocket\r\nConnection: Upgrade',
  'Connection: close', 'Connection: keep-alive', 'X-Request-Id: ../../etc', ':authority: x', 'Cookie: __proto__=1'
]
const CHUNKED = ['5\r\n{"a":\r\n0\r\n\r\n', 'zz\r\nxx\r\n0\r\n\r\n', '5\r\n{"a":1}\r\n0\r\n\r\n', 'ffffffffffffffff\r\n', '0\r\n\r\n', '1;ext=' + 'e'.repeat(10_000) + '\r\nx\r\n0\r\n\r\n']

export const rawRequest: fc.Arbitrary<Buffer> = fc.record({
  method: fc.constantFrom(...METHODS),
  target: fc.constantFrom(...TARGETS),
  version: fc.oneof({ arbitrary: fc.constant('HTTP/1.1'), weight: 5 }, { arbitrary: fc.constantFrom(...VERSIONS), weight: 1 }),
  headers: fc.array(fc.constantFrom(...HEADER_LINES), { maxLength: 4 }),
  chunked: fc.option(fc.constantFrom(...CHUNKED), { freq: 3 }),
  body: bodyArbitrary,
  pipelined: fc.boolean()
}).map(({ method, target, version, headers, chunked, body, pipelined }) => {
  const head = `${method} ${target} ${version}\r\n${headers.join('\r\n')}${headers.length > 0 ? '\r\n' : ''}`
  const payload = chunked ?? body?.toString('latin1') ?? ''
  const length = chunked === null && body !== undefined && !headers.some((h) => /content-length|transfer-encoding/i.test(h)) ? `Content-Length: ${body.length}\r\n` : ''
  const first = `${head}${length}\r\n${payload}`
  return Buffer.from(pipelined ? `${first}GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n` : first, 'latin1')
})
