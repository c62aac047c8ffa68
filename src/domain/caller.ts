/**
 * Who asks, as the record rules see it (docs/rules.md): the subject a token
 * or JWT names, the roles it carries, and whether it holds the `admin`
 * scope, which passes every rule. The HTTP layer makes one from its
 * principal, so nothing below it needs an HTTP type.
 */
export interface Caller {
  /** The subject: a static token's `sub` (its name unless told otherwise) or a JWT's `sub`; none for anonymous callers. */
  readonly sub?: string
  readonly roles: readonly string[]
  /** The `admin` scope: every rule holds, every field is visible. */
  readonly admin: boolean
}

/** A caller without a token: no subject, no roles. */
export const ANONYMOUS_CALLER: Caller = Object.freeze({ roles: Object.freeze([]), admin: false })

/** A caller that every rule lets through (the server's own work: imports, seeds, the schema tools). */
export const ADMIN_CALLER: Caller = Object.freeze({ roles: Object.freeze([]), admin: true })

/** A short stable text naming a caller, for keys of answers kept per caller (idempotent replays). */
export function callerKey (caller: Caller): string {
  return JSON.stringify([caller.sub ?? null, [...caller.roles].sort(), caller.admin])
}
