import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify'

type Bindings = Record<string, unknown>
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1]
type LogMethod = (...args: unknown[]) => void
type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>

/**
 * A request's logger that becomes a real pino child (with the request id
 * bound) only when something logs through it (issue 12). Fastify makes a
 * child per request; pino serialises the bindings to JSON when the child is
 * made, about a microsecond, and most requests never log a line (no access
 * log by default). What is logged is the same: the child is made from the
 * same parent, bindings and options as Fastify's default factory would.
 */
class RequestLogger {
  readonly #parent: FastifyBaseLogger
  readonly #bindings: Bindings
  readonly #options: ChildOptions
  #child: FastifyBaseLogger | undefined

  constructor (parent: FastifyBaseLogger, bindings: Bindings, options: ChildOptions) {
    this.#parent = parent
    this.#bindings = bindings
    this.#options = options
  }

  #real (): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options)
    return this.#child
  }

  get level (): string { return this.#child?.level ?? this.#options?.level ?? this.#parent.level }
  set level (level: string) { this.#real().level = level }

  fatal (...args: unknown[]): void { (this.#real().fatal as LogMethod)(...args) }
  error (...args: unknown[]): void { (this.#real().error as LogMethod)(...args) }
  warn (...args: unknown[]): void { (this.#real().warn as LogMethod)(...args) }
  info (...args: unknown[]): void { (this.#real().info as LogMethod)(...args) }
  debug (...args: unknown[]): void { (this.#real().debug as LogMethod)(...args) }
  trace (...args: unknown[]): void { (this.#real().trace as LogMethod)(...args) }
  silent (): void {}

  child (bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options)
  }

  isLevelEnabled (level: string): boolean {
    return (this.#real() as FastifyBaseLogger & { isLevelEnabled: (level: string) => boolean }).isLevelEnabled(level)
  }
}

/**
 * Fastify's childLoggerFactory: a RequestLogger instead of an eager pino child.
 * Its parent is the server's logger (`this.log`, set by src/server.ts), not the
 * one Fastify passes, which is Fastify's silent stand-in when it was given no
 * logger (./server-logger.ts); Fastify calls a custom factory either way.
 */
export const lazyRequestLogger: ChildLoggerFactory = function lazyRequestLogger (this: { log?: FastifyBaseLogger } | undefined, logger, bindings, options) {
  return new RequestLogger(this?.log ?? logger, bindings, options) as unknown as FastifyBaseLogger
}

/** Where a request keeps its lazy logger once asked for (a decoration: every request has the same shape). */
const LAZY_LOGGER = Symbol('rqs.requestLogger')
type WithLazyLogger = FastifyRequest & { [LAZY_LOGGER]: RequestLogger | null }
/** Marks the server's reply class as its own (see installLazyRequestLoggers). */
const REPLY_MARK = Symbol('rqs.replyLogger')

/** This instance's request or reply class (Fastify keeps them under symbols it does not export). */
function fastifyClass (app: FastifyInstance, description: string): { prototype: object } | undefined {
  const key = Object.getOwnPropertySymbols(app).find((symbol) => symbol.description === description)
  const value: unknown = key === undefined ? undefined : (app as unknown as Record<symbol, unknown>)[key]
  if (typeof value !== 'function' || !Array.isArray((value as { props?: unknown }).props)) return undefined
  return value as unknown as { prototype: object }
}

/**
 * Every request's `log` (and its reply's, the same object) becomes a lazy RequestLogger read from the
 * request itself, instead of one made by a child-logger factory. Fastify given no logger and its own
 * default factory makes no child at all for a routed request, where a factory of ours costs every
 * request a bindings object, an options object, the call and Fastify's check of what it returned (an
 * array, a closure and seven megamorphic loads): here the request and reply classes of this instance
 * get a `log` accessor whose setter drops what Fastify hands them (its silent logger) and whose getter
 * makes the RequestLogger, bound to the request id as Fastify's default would bind it, on first use.
 * Lines logged are the same. Returns false, changing nothing, when this Fastify's classes are not
 * where this looks (another version): the caller then sets the factory instead.
 */
export function installLazyRequestLoggers (app: FastifyInstance): boolean {
  const request = fastifyClass(app, 'fastify.Request')
  const reply = fastifyClass(app, 'fastify.Reply')
  if (request === undefined || reply === undefined || 'log' in request.prototype || 'log' in reply.prototype) return false
  app.decorateRequest(LAZY_LOGGER as unknown as string, null)
  // A decoration of the reply class too (an accessor: nothing stored per reply): Fastify's routes skip an
  // undecorated instance class for its own base class, which would leave the reply's `log` its own property.
  app.decorateReply(REPLY_MARK as unknown as string, { getter: () => true })
  Object.defineProperty(request.prototype, 'log', {
    configurable: true,
    get (this: WithLazyLogger): RequestLogger {
      return (this[LAZY_LOGGER] ??= new RequestLogger(app.log, { reqId: this.id }, {}))
    },
    set () {}
  })
  Object.defineProperty(reply.prototype, 'log', {
    configurable: true,
    get (this: FastifyReply): FastifyBaseLogger { return this.request.log },
    set () {}
  })
  return true
}
