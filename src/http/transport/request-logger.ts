import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify'

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
