/**
 * Request counts and latencies by service, route pattern, method and status,
 * counted in plain numbers on the request path and written in the Prometheus
 * text format only when /metrics is scraped.
 *
 * Why not prom-client's Counter and Histogram here: each labelled `inc` or
 * `observe` validates and hashes the label set, about 1.5 to 3 µs apiece on
 * the machines rqs is measured on, which is 5 to 10% of a whole
 * `GET /students/{id}`. Counting into an array found through three map
 * lookups costs well under a tenth of a microsecond, and the scrape, not the
 * request, pays for the formatting. prom-client still serves everything else
 * (process, event loop, store and refusal metrics).
 */

/** Upper bounds in seconds; finer than the usual defaults at the low end, where rqs answers. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export const REQUESTS_TOTAL = 'rqs_http_requests_total'
export const REQUEST_DURATION = 'rqs_http_request_duration_seconds'

/** One label set: how many requests, their summed duration, and how many fell in each bucket (not cumulative). */
interface Series {
  count: number
  sum: number
  buckets: number[]
}

interface RouteSeries {
  service: string
  byMethod: Map<string, Map<number, Series>>
}

export class RequestMetrics {
  /** By service, then route pattern: two services may serve one pattern (the directory and students mounted at /). */
  readonly #services = new Map<string, Map<string, RouteSeries>>()

  /** Counts one answered request of `route`, which `service` declares. */
  record (route: string, service: string, method: string, status: number, seconds: number): void {
    let routes = this.#services.get(service)
    if (routes === undefined) {
      routes = new Map()
      this.#services.set(service, routes)
    }
    let forRoute = routes.get(route)
    if (forRoute === undefined) {
      forRoute = { service, byMethod: new Map() }
      routes.set(route, forRoute)
    }
    let byStatus = forRoute.byMethod.get(method)
    if (byStatus === undefined) {
      byStatus = new Map()
      forRoute.byMethod.set(method, byStatus)
    }
    let series = byStatus.get(status)
    if (series === undefined) {
      series = { count: 0, sum: 0, buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0) }
      byStatus.set(status, series)
    }
    series.count++
    series.sum += seconds
    let bucket = 0
    while (bucket < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[bucket] as number)) bucket++
    series.buckets[bucket] = (series.buckets[bucket] ?? 0) + 1
  }

  /** Both metric families in the Prometheus text exposition format (version 0.0.4). */
  render (): string {
    const counts = [
      `# HELP ${REQUESTS_TOTAL} HTTP requests answered, by service, route pattern, method and status`,
      `# TYPE ${REQUESTS_TOTAL} counter`
    ]
    const durations = [
      `# HELP ${REQUEST_DURATION} Time from the request arriving to the response being written, by service, route pattern, method and status`,
      `# TYPE ${REQUEST_DURATION} histogram`
    ]
    for (const [route, { service, byMethod }] of [...this.#services.values()].flatMap((routes) => [...routes])) {
      for (const [method, byStatus] of byMethod) {
        for (const [status, series] of byStatus) {
          const labels = `service="${escape(service)}",route="${escape(route)}",method="${escape(method)}",status="${status}"`
          counts.push(`${REQUESTS_TOTAL}{${labels}} ${series.count}`)
          let cumulative = 0
          LATENCY_BUCKETS.forEach((bound, i) => {
            cumulative += series.buckets[i] as number
            durations.push(`${REQUEST_DURATION}_bucket{${labels},le="${bound}"} ${cumulative}`)
          })
          durations.push(`${REQUEST_DURATION}_bucket{${labels},le="+Inf"} ${series.count}`)
          durations.push(`${REQUEST_DURATION}_sum{${labels}} ${series.sum}`)
          durations.push(`${REQUEST_DURATION}_count{${labels}} ${series.count}`)
        }
      }
    }
    return `${counts.join('\n')}\n${durations.join('\n')}\n`
  }
}

/** Label values escape backslash, double quote and line feed. */
function escape (value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
}
