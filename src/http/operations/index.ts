/** Operations: health and readiness, Prometheus metrics, the audit log. */
export { audit } from './audit.js'
export { healthPlugin } from './health.js'
export { createMetrics, metrics, metricsOptions } from './metrics.js'
