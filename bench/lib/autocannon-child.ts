// The fallback load generator (no wrk on this machine): autocannon in one worker thread, so its
// main thread stays free; prints its figures as one `ACJSON {...}` line for bench/lib/load.ts.
import autocannon from 'autocannon'

const config = JSON.parse(process.argv[2] ?? '{}') as autocannon.Options & { amount?: number }
const result = await autocannon({ ...config, workers: 1, pipelining: 1 })
const seconds = result.duration
process.stdout.write(`ACJSON ${JSON.stringify({
  requests: result.requests.total,
  seconds,
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  errors: result.non2xx + result.errors + result.timeouts
})}\n`)
