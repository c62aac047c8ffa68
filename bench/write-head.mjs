// What node:http costs to write a response head, per way of handing it the headers: the question whether rqs's
// start could hand its headers to node unchecked. In one process, the variants alternate in bursts of 100 000
// heads for 30 rounds; CPU per head from process.cpuUsage, median of the rounds (a new ServerResponse each time,
// its construction included). Every variant's head is checked to be byte for byte the `checked-6` one's.
//   node bench/write-head.mjs [rounds]
import http from 'node:http'
import console from 'node:console'
import process from 'node:process'

const rounds = Number(process.argv[2] ?? '30')
const req = new http.IncomingMessage(null)
req.method = 'GET'
req.httpVersionMajor = req.httpVersionMinor = 1
// node's own header store (what setHeader fills, and writeHead writes without checking again); no public accessor.
const kOutHeaders = Object.getOwnPropertySymbols(new http.ServerResponse(req)).find((s) => s.description === 'kOutHeaders')
if (kOutHeaders === undefined) throw new Error('no kOutHeaders on this node')
/** A store with no inherited names, as node's own, but with fast properties. */
const Store = function () {}
Store.prototype = Object.create(null)
const ids = Array.from({ length: 1024 }, (_, i) => `0f9d2c4e-8a1b-4c3d-9e7f-${String(100000000000 + i)}`)
const JSON_TYPE = 'application/json; charset=utf-8'

/** What Fastify hands writeHead for a GET by id of rqs: the start's three headers, a first Vary, then its own two. */
function rqsHeaders (i) {
  const h = {}
  h['x-request-id'] = ids[i & 1023]
  h['x-content-type-options'] = 'nosniff'
  h['x-frame-options'] = 'DENY'
  h.vary = 'Accept'
  h['content-type'] = JSON_TYPE
  h['content-length'] = '95'
  return h
}

/** A writeHead that checks each name once per process (node's public validators) and every value, then writes from its own store. */
const names = new Set()
class NamesOnce extends http.ServerResponse {
  writeHead (status, headers) {
    const store = new Store()
    for (const name in headers) {
      const value = headers[name]
      if (!names.has(name)) { http.validateHeaderName(name); names.add(name) }
      http.validateHeaderValue(name, value)
      store[name] = [name, value]
    }
    this[kOutHeaders] = store
    return super.writeHead(status)
  }
}

const variants = {
  // Fastify with nothing added: its two headers, checked.
  'checked-2': (_i) => { const res = new http.ServerResponse(req); const h = {}; h['content-type'] = JSON_TYPE; h['content-length'] = '95'; res.writeHead(200, h); return res },
  // rqs today: six headers in the reply's header object, each name and value checked by writeHead.
  'checked-6': (i) => { const res = new http.ServerResponse(req); res.writeHead(200, rqsHeaders(i)); return res },
  // The start's three stored into node's store first: writeHead then takes its "progressive" path, every header
  // Fastify hands it going through setHeader (checked, lowercased, an entry each).
  'start-in-store': (i) => {
    const res = new http.ServerResponse(req)
    const store = res[kOutHeaders] = new Store()
    store['x-request-id'] = ['x-request-id', ids[i & 1023]]
    store['x-content-type-options'] = ['x-content-type-options', 'nosniff']
    store['x-frame-options'] = ['x-frame-options', 'DENY']
    const h = {}
    h.vary = 'Accept'
    h['content-type'] = JSON_TYPE
    h['content-length'] = '95'
    res.writeHead(200, h)
    return res
  },
  // Names checked once, values every time.
  'names-once': (i) => { const res = new NamesOnce(req); res.writeHead(200, rqsHeaders(i)); return res },
  // The bound: all six from node's store, nothing checked (not safe for values a route sets).
  'unchecked-6': (i) => {
    const res = new http.ServerResponse(req)
    const store = res[kOutHeaders] = new Store()
    for (const [name, value] of Object.entries(rqsHeaders(i))) store[name] = [name, value]
    res.writeHead(200)
    return res
  }
}

const head = (res) => res._header.replace(/\r\nDate: [^\r]*/, '')
const reference = head(variants['checked-6'](7))
for (const [name, make] of Object.entries(variants)) {
  if (name !== 'checked-2' && head(make(7)) !== reference) throw new Error(`${name} writes another head`)
}
const times = Object.fromEntries(Object.keys(variants).map((name) => [name, []]))
let sink = 0
for (let round = 0; round < rounds; round++) {
  for (const [name, make] of Object.entries(variants)) {
    const n = 100_000
    const before = process.cpuUsage()
    for (let i = 0; i < n; i++) sink += make(i)._header.length
    const used = process.cpuUsage(before)
    times[name].push((used.user + used.system) * 1000 / n)
  }
}
const median = (values) => values.slice().sort((a, b) => a - b)[values.length >> 1]
for (const [name, values] of Object.entries(times)) console.log(`${name.padEnd(15)} ${median(values).toFixed(0).padStart(5)} ns a head (rounds ${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`)
if (sink === 0) console.log('')
