import fp from 'fastify-plugin'
import type { FastifyInstance, onRequestHookHandler, RouteOptions } from 'fastify'
import { declared } from '../routes/index.js'
import type { Reject } from './reject.js'

export interface AdminLoopbackOptions {
  reject: Reject
}

/** Addresses of this machine, as Node reports a peer (IPv4, IPv6, IPv4-mapped IPv6). */
function isLoopbackAddress (address: string | undefined): boolean {
  if (address === undefined) return false
  const plain = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address
  return plain === '::1' || plain.startsWith('127.')
}

/**
 * Without authentication, routes that declare `admin` access (webhooks: they
 * make the server send data elsewhere) answer callers on this machine only,
 * unless `--admin-any-address`. The caller is `request.ip`: its peer, or the
 * client a trusted proxy names (so a proxy on loopback does not make every
 * caller local). Registered only when authentication is off; with it on,
 * the `admin` scope decides.
 */
async function adminLoopbackPlugin (app: FastifyInstance, { reject }: AdminLoopbackOptions): Promise<void> {
  function guard (route: RouteOptions): onRequestHookHandler {
    return function adminFromLoopback (request, reply, done) {
      if (declared(route.config)?.access !== 'admin' || isLoopbackAddress(request.ip)) { done(); return }
      reject(request, reply, 'FORBIDDEN', { detail: 'Without authentication, this administration route answers callers on the server\'s own machine only (start rqs with --auth-tokens, or --admin-any-address)' })
    }
  }
  app.addHook('onRoute', (route: RouteOptions) => {
    const current = route.onRequest
    const hook = guard(route)
    if (current === undefined) route.onRequest = [hook]
    else if (Array.isArray(current)) {
      if (current.some((h) => h.name === 'adminFromLoopback')) return
      route.onRequest = [...current, hook]
    } else route.onRequest = [current, hook]
  })
}

export const adminLoopback = fp(adminLoopbackPlugin, { name: 'rqs-admin-loopback', fastify: '5.x' })
