import fp from 'fastify-plugin'
import fastifyHelmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'

/**
 * The Content-Security-Policy of every response. Scripts only from this
 * server and never inline (the landing page has none; GraphiQL, its Monaco
 * workers and Swagger UI are files served from here), so an injected
 * `<script>` or `onclick=` does not run. Inline styles stay allowed: Monaco
 * and Swagger UI set `style` attributes, and styles cannot run code.
 */
export const CONTENT_SECURITY_POLICY = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'worker-src': ["'self'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"]
}

/**
 * Security headers with @fastify/helmet on every response: nosniff,
 * `Referrer-Policy: no-referrer`, framing refused (`X-Frame-Options: DENY`
 * and `frame-ancestors 'none'`) and the policy above. No
 * Strict-Transport-Security: this server speaks plain HTTP, and HSTS belongs
 * to the TLS-terminating proxy in front of it.
 */
async function headersPlugin (app: FastifyInstance): Promise<void> {
  await app.register(fastifyHelmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    strictTransportSecurity: false,
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' }
  })
}

export const securityHeaders = fp(headersPlugin, { name: 'rqs-security-headers', fastify: '5.x' })
