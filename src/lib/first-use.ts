/**
 * A value made when it is first asked for, then kept: work that a start
 * would pay for everything (compiling a validator per route, per collection)
 * is paid only by what is used, once.
 */
export function onFirstUse<T> (make: () => T): () => T {
  let made: { value: T } | undefined
  return () => (made ??= { value: make() }).value
}

/** What a schema compiler hands back: a check that leaves its failures on `errors` (ajv's and Fastify's shape). */
export type CompiledCheck<E> = ((data: unknown) => boolean) & { errors?: E | null }

/**
 * A check compiled when it first checks something, not when it is declared:
 * a route never asked costs nothing at start. Its failures are handed over
 * on `errors`, which is where Fastify and ajv's callers read them.
 */
export function compiledOnFirstUse<E> (compile: () => CompiledCheck<E>): CompiledCheck<E> {
  const compiled = onFirstUse(compile)
  const check: CompiledCheck<E> = Object.assign((data: unknown) => {
    const validate = compiled()
    const valid = validate(data)
    check.errors = validate.errors ?? null
    return valid
  }, { errors: null })
  return check
}
