import type { FastifyInstance } from 'fastify'
import { ERRORS_PATH } from './catalogue.js'

/**
 * Where the `type` and `help` links of errors point. They are built from the
 * configured public URL (`--public-url`, see ../public-url.ts), never from the
 * request's Host header (issue 10, defect 7: `Host: evil.example` became
 * `"type":"http://evil.example/errors/…"`). Without a public URL the links
 * are relative, which RFC 9457 allows (resolved against the request's URL).
 */

declare module 'fastify' {
  interface FastifyInstance {
    /** `https://api.example.com` (no trailing slash), or '' for relative links. */
    publicUrl: string
  }
}

/** `https://api.example.com/errors/` or `/errors/`: what an error code is appended to. */
export function errorsBase (app: FastifyInstance): string {
  return `${app.publicUrl ?? ''}${ERRORS_PATH}/`
}
