import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from 'fastify'
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
 * the `admin` scope decides. Only admin routes get the hook (a default
 * server's other routes pay nothing), so an admin route must state its access
 * in its own `config.rqs`, where this root hook sees it; one whose scope
 * declared it instead stops the server at start rather than go unguarded.
 */
async function adminLoopbackPlugin (app: FastifyInstance, { reject }: AdminLoopbackOptions): Promise<void> {
  function adminFromLoopback (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    if (isLoopbackAddress(request.ip)) { done(); return }
    reject(request, reply, 'FORBIDDEN', { detail: 'Without authentication, this administration route answers callers on the server\'s own machine only (start rqs with --auth-tokens, or --admin-any-address)' })
  }
  const unguarded: RouteOptions[] = []
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.rqs?.access !== 'admin') { unguarded.push(route); return }
    const current = route.onRequest
    if (current === undefined) route.onRequest = [adminFromLoopback]
    else if (Array.isArray(current)) {
      if (!current.includes(adminFromLoopback)) route.onRequest = [...current, adminFromLoopback]
    } else route.onRequest = [current, adminFromLoopback]
  })
  app.addHook('onReady', async () => {
    const missed = unguarded.find((route) => declared(route.config)?.access === 'admin')
    if (missed !== undefined) throw new Error(`${String(missed.method)} ${missed.url}: admin access must be declared on the route itself (config.rqs.access), so that it is guarded without authentication`)
    unguarded.length = 0
  })
}

export const adminLoopback = fp(adminLoopbackPlugin, { name: 'rqs-admin-loopback', fastify: '5.x' })
