import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { ReplyHeaderObjects, type HeaderObject } from './reply-headers.js'

/**
 * One synchronous step of every request's start (the deadline's watch, the request id's echo, the Host
 * check, the protective headers). It returns true to go on, false when it has answered the request itself (a refusal):
 * the steps after it do not run, nor does the route. A step that throws fails the request as a hook would.
 * `headers` is the reply's header object when the server's start gives it (./reply-headers.ts), a step
 * writing a header there instead of calling `reply.header`; undefined otherwise (a plugin used alone).
 */
export type StartStep = (request: FastifyRequest, reply: FastifyReply, headers?: HeaderObject) => boolean

/**
 * The server-wide synchronous steps of a request's start, run in one onRequest hook. Fastify's hook
 * runner costs every hook a call through a bound function, a check that the reply was not sent and a
 * step of its iteration, and every request the closures of its runner; the steps here cost a call
 * each. The hook is added where the first step comes (the request limits, registered first), and the
 * steps added later (the security plugins' sync checks) run in it in the order they were added, still
 * before every other server-wide hook (CORS, overload, rate limit: asynchronous or later ones).
 */
export class RequestStart {
  readonly #steps: StartStep[] = []
  #hooked = false
  /** Every reply's header object, handed to the steps (and to the routes' own hooks that add a header to every answer). */
  readonly headers = new ReplyHeaderObjects()

  /** The steps' names, in the order they run (what printRoutes shows of other hooks: which features hook in). */
  get names (): string[] {
    return this.#steps.map((step) => step.name)
  }

  /** Runs `step` after the steps added before it; the first one adds the hook to `app` (a root-level scope). */
  add (app: FastifyInstance, step: StartStep): void {
    this.#steps.push(step)
    if (this.#hooked) return
    this.#hooked = true
    const steps = this.#steps
    const headers = this.headers
    app.addHook('onRequest', function requestStart (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
      const object = headers.of(reply)
      for (let i = 0; i < steps.length; i++) if (!steps[i]!(request, reply, object)) return
      done()
    })
  }
}

/** Adds `step` to the server's start when there is one, or as an onRequest hook of its own (a plugin used alone). */
export function addStartStep (app: FastifyInstance, start: RequestStart | undefined, step: StartStep): void {
  if (start !== undefined) { start.add(app, step); return }
  app.addHook('onRequest', function startStep (request, reply, done) {
    if (step(request, reply)) done()
  })
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's synchronous start steps (src/server.ts builds it); absent on a Fastify instance built otherwise. */
    requestStart?: RequestStart
  }
}
