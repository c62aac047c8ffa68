import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ERRORS_PATH } from './errors/catalogue.js'

/**
 * Where clients reach this server, for the absolute links rqs puts in answers
 * (the `type` and `help` links of problem details). The request's Host header
 * is never used for them (issue 10, defect 7: `Host: evil.example` became
 * `"type":"http://evil.example/errors/…"`): without a configured public URL
 * the links are relative, which RFC 9457 allows (resolved against the
 * request's URL).
 */

declare module 'fastify' {
  interface FastifyInstance {
    /** `https://api.example.com` (no trailing slash), or '' for relative links. */
    publicUrl: string
  }
}

/**
 * `https://api.example.com/`, `http://host:8080/prefix` → the same without a
 * trailing slash; undefined for anything that is not an absolute http(s) URL
 * without credentials, query or fragment.
 */
export function normalisePublicUrl (text: string): string | undefined {
  let url: URL
  try { url = new URL(text) } catch { return undefined }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#')) return undefined
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '')
}

/** Makes the configured public URL ('' = relative links) known to every part of the app. */
export function registerPublicUrl (app: FastifyInstance, publicUrl: string | undefined): void {
  app.decorate('publicUrl', publicUrl ?? '')
}

/** `https://api.example.com/errors/` or `/errors/`: what an error code is appended to. */
export function errorsBase (request: FastifyRequest): string {
  return errorsBaseOf(request.server)
}

/** The same for answers written before any request is parsed. */
export function errorsBaseOf (app: FastifyInstance): string {
  return `${app.publicUrl ?? ''}${ERRORS_PATH}/`
}
