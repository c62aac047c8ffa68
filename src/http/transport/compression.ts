import fastifyCompress from '@fastify/compress'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** Answers below this many bytes are sent as they are: compressing them saves less than it costs. */
export const COMPRESSION_THRESHOLD = 1024

/**
 * Response compression (br or gzip, as Accept-Encoding allows) for answers
 * above the threshold: lists, the OpenAPI document, the error catalogue,
 * GraphQL results, Swagger UI's files. Routes whose answers are always small
 * (one record, health checks) say `compress: false` and get no compression
 * hooks at all, so they pay nothing. Request bodies are not decompressed.
 * Registered before the routes: it attaches its hooks as routes are added.
 */
export const compressionPlugin = fp(async function rqsCompression (app: FastifyInstance) {
  await app.register(fastifyCompress, {
    global: true,
    threshold: COMPRESSION_THRESHOLD,
    encodings: ['br', 'gzip'],
    globalDecompression: false
  })
}, { name: 'rqs-compression', fastify: '5.x' })
