import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { StoreUnavailableError } from '../../../src/domain/index.js'
import { RequestMetrics } from '../../../src/http/operations/request-metrics.js'
import type { RecordStore } from '../../../src/domain/index.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, security, writeTokensFile, type TokensFile } from './helpers.js'
import { family, sampleOf, scrape, scrapeText, valueOf } from './scrape.js'
import { memoryStores, type Stores } from '../../helpers/built-ins.js'

const ada = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }

describe('/metrics (--metrics)', () => {
  let server: RunningServer
  let stores: Stores
  let students: RecordStore
  beforeAll(async () => {
    stores = { ...memoryStores(), poolStats: () => ({ max: 10, open: 3, idle: 2, waiting: 0 }) }
    students = stores.collections.get('students') as RecordStore // the store itself; the server counts through a twin
    server = await startServer({ security: security({ metrics: true }) }, { stores })
    await request(`${server.origin}/students`, { method: 'POST', json: ada })
  })
  afterAll(async () => { await server?.close() })

  it('parses as Prometheus text, with the process and event-loop metrics', async () => {
    const families = await scrape(server)
    const names = families.map((f) => f.name)
    expect(names).toEqual(expect.arrayContaining([
      'rqs_http_requests_total', 'rqs_http_request_duration_seconds', 'rqs_rejected_requests_total', 'rqs_store_errors_total',
      'process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes'
    ]))
    expect(family(families, 'rqs_http_request_duration_seconds').type).toBe('HISTOGRAM')
  })

  it('request counts and the latency histogram move with the requests, by service, route, method and status', async () => {
    const one = { service: 'students', route: '/students/:id', method: 'GET', status: '200' }
    const before = await scrapeText(server)
    for (let i = 0; i < 5; i++) expect((await request(`${server.origin}/students/0`)).status).toBe(200)
    await request(`${server.origin}/students/99`)
    await request(`${server.origin}/v2/addresses`)
    await request(`${server.origin}/graphql`, { method: 'POST', json: { query: '{ albums { title } }' } })
    await request(`${server.origin}/no/such/path`)
    const { families: after, text } = await scrapeText(server)
    expect(valueOf(after, 'rqs_http_requests_total', one) - valueOf(before.families, 'rqs_http_requests_total', one)).toBe(5)
    expect(valueOf(after, 'rqs_http_requests_total', { ...one, status: '404' })).toBe(1)
    expect(valueOf(after, 'rqs_http_requests_total', { service: 'addresses', route: '/v2/addresses', status: '200' })).toBe(1)
    expect(valueOf(after, 'rqs_http_requests_total', { service: 'albums', route: '/graphql', method: 'POST' })).toBe(1)
    expect(valueOf(after, 'rqs_http_requests_total', { service: 'unmatched', route: 'unmatched', status: '404' })).toBe(1)
    // The histogram counts the same requests, and every one falls in the +Inf bucket.
    const count = 'rqs_http_request_duration_seconds_count'
    expect(sampleOf(text, count, one) - sampleOf(before.text, count, one)).toBe(5)
    expect(sampleOf(text, 'rqs_http_request_duration_seconds_bucket', { ...one, le: '+Inf' })).toBe(sampleOf(text, count, one))
    expect(sampleOf(text, 'rqs_http_request_duration_seconds_sum', one)).toBeGreaterThan(0)
  })

  it('counts store errors by store, operation and kind, and shows the database pool', async () => {
    // The spec's student list reads every record: one `query` of the collection's store.
    students.query = async () => { throw new StoreUnavailableError() }
    try {
      expect((await request(`${server.origin}/students`)).status).toBe(503)
    } finally {
      delete (students as Partial<RecordStore>).query // the prototype's again
    }
    const families = await scrape(server)
    expect(valueOf(families, 'rqs_store_errors_total', { store: 'students', operation: 'query', kind: 'unavailable' })).toBe(1)
    expect(valueOf(families, 'rqs_store_pool_max_connections')).toBe(10)
    expect(valueOf(families, 'rqs_store_pool_open_connections')).toBe(3)
    expect(valueOf(families, 'rqs_store_pool_idle_connections')).toBe(2)
    expect(valueOf(families, 'rqs_store_pool_waiting_requests')).toBe(0)
  })
})

describe('/metrics with authentication and a rate limit', () => {
  let server: RunningServer
  let tokens: TokensFile
  beforeAll(async () => {
    tokens = await writeTokensFile({ reader: ['read'], prometheus: ['metrics'] })
    server = await startServer({ security: security({ metrics: true, authTokensFile: tokens.path, rateLimit: { max: 3, windowMs: 60_000 } }) })
  })
  afterAll(async () => {
    await server?.close()
    await tokens?.remove()
  })

  it('counts 401, 403 and 429 refusals by code', async () => {
    const prometheus = tokens.tokens.prometheus as string
    const before = await scrape(server, prometheus)
    await request(`${server.origin}/students`) // 401
    await request(`${server.origin}/students`, { method: 'POST', json: ada, headers: bearer(tokens.tokens.reader as string) }) // 403
    for (let i = 0; i < 3; i++) await request(`${server.origin}/addresses`, { headers: bearer(tokens.tokens.reader as string) }) // reader's 4th request: 429
    const after = await scrape(server, prometheus)
    for (const code of ['UNAUTHENTICATED', 'FORBIDDEN', 'RATE_LIMITED']) {
      expect(valueOf(after, 'rqs_rejected_requests_total', { code }) - valueOf(before, 'rqs_rejected_requests_total', { code }), code).toBe(1)
    }
    expect(valueOf(after, 'rqs_http_requests_total', { status: '429' })).toBe(1)
  })
})

describe('without --metrics (the default)', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer() })
  afterAll(async () => { await server?.close() })

  it('there is no /metrics', async () => {
    expect((await request(`${server.origin}/metrics`)).status).toBe(404)
  })
})

describe('request counts outside prom-client', () => {
  it('put a request in the first bucket whose bound it does not exceed, cumulate buckets, and escape label values', () => {
    const counts = new RequestMetrics()
    for (const seconds of [0.0005, 0.0006, 0.02, 30]) counts.record('/a/"b"\\c', 'students', 'GET', 200, seconds)
    const text = counts.render()
    const labels = 'service="students",route="/a/\\"b\\"\\\\c",method="GET",status="200"'
    expect(text).toContain(`rqs_http_requests_total{${labels}} 4`)
    expect(text).toContain(`rqs_http_request_duration_seconds_bucket{${labels},le="0.0005"} 1`)
    expect(text).toContain(`rqs_http_request_duration_seconds_bucket{${labels},le="0.001"} 2`)
    expect(text).toContain(`rqs_http_request_duration_seconds_bucket{${labels},le="0.025"} 3`)
    expect(text).toContain(`rqs_http_request_duration_seconds_bucket{${labels},le="10"} 3`)
    expect(text).toContain(`rqs_http_request_duration_seconds_bucket{${labels},le="+Inf"} 4`)
    expect(text).toContain(`rqs_http_request_duration_seconds_count{${labels}} 4`)
    expect(parsePrometheusTextFormat(text).map((f) => f.name)).toEqual(['rqs_http_requests_total', 'rqs_http_request_duration_seconds'])
  })
})
