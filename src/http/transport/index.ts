/** Transport: connection and request limits, time-outs, request ids, compression, CONNECT, the Fastify options. */
export { bodyHeadersPlugin } from './body-headers.js'
export { BoundLog } from './bound-log.js'
export { compressionPlugin } from './compression.js'
export { connectPlugin } from './connect.js'
export { echoRequestId, freshRequestId, requestIdPlugin } from './request-id.js'
export { fastifyOptions } from './server-options.js'
export { requestLimitsPlugin } from './timeouts.js'
