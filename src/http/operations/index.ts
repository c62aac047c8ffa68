/** Operations: health and readiness, Prometheus metrics, the audit log. */
export { audit } from './audit.js'
export { healthPlugin, LIVENESS_PATH, READINESS_PATH } from './health.js'
export { createMetrics, metrics, metricsOptions, METRICS_PATH } from './metrics.js'
