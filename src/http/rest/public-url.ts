import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import '../errors/links.js'

/**
 * Makes the configured public URL (`--public-url`; '' = relative links) known
 * to every part of the app, for the absolute links rqs puts in answers (the
 * `type` and `help` links of problem details, ./errors/links.ts). The
 * request's Host header is never used for them.
 */
export const publicUrlPlugin = fp(async function rqsPublicUrl (app: FastifyInstance, opts: { publicUrl: string | undefined }) {
  app.decorate('publicUrl', opts.publicUrl ?? '')
}, { name: 'rqs-public-url', fastify: '5.x' })
