import { ServerResponse, type IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/**
 * CONNECT asks a proxy for a tunnel. Node hands such requests to the server's
 * 'connect' event instead of the request handler, and closes the socket when
 * nobody listens (issue 10, defect 8: no answer at all). Here the request
 * goes through Fastify's routing like any other, so it is answered in the
 * shape of the service its path belongs to: 405 with Allow on a service path,
 * 404 elsewhere, 400 for an authority target such as `example.com:443`
 * (this server is not a proxy). The connection is closed after the answer:
 * Node has detached its HTTP parser from the socket.
 */
export const connectPlugin = fp(async function rqsConnect (app: FastifyInstance) {
  // Routes may name CONNECT (the 405 routes do: HTTP_METHODS in ./method-not-allowed.ts), and Fastify treats it as bodyless.
  app.addHttpMethod('CONNECT')
  app.server.on('connect', (req: IncomingMessage, duplex: Duplex) => {
    const socket = duplex as Socket // a TCP socket on an http.Server
    socket.on('error', () => {}) // a client that vanishes mid-answer is no fault of ours
    const res = new ServerResponse(req)
    res.shouldKeepAlive = false
    res.assignSocket(socket)
    res.once('finish', () => {
      res.detachSocket(socket)
      socket.end()
      socket.once('finish', () => socket.destroy())
    })
    app.routing(req, res)
  })
}, { name: 'rqs-connect', fastify: '5.x' })
