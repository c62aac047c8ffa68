import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto'

/**
 * Signatures as Standard Webhooks defines them (standardwebhooks.com), so
 * receivers can use its libraries: the secret is `whsec_` and base64 of the
 * key; `webhook-signature` is `v1,<base64 HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>">`, several separated by spaces
 * (both secrets' during a rotation's grace period).
 */

export const SECRET_PREFIX = 'whsec_'
const SECRET_BYTES = 32

/** A new signing secret: 256 random bits. */
export function generateSecret (): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64')
}

/** The HMAC key a secret stands for. */
export function signingKey (secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64'))
}

/** One `v1,…` signature of a message with one key. */
function signWith (key: KeyObject, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

/** One `v1,…` signature of a message with one secret. */
export function sign (secret: string, id: string, timestamp: number, body: string): string {
  return signWith(signingKey(secret), id, timestamp, body)
}

/** Keys most secrets kept: far more than webhooks a server has, so only a flood of rotations empties it. */
const KEPT_KEYS = 1024

/**
 * The secrets' keys, each decoded once rather than at every delivery (a
 * dispatcher's own: state on the server, not in the module).
 */
export class SigningKeys {
  readonly #keys = new Map<string, KeyObject>()

  of (secret: string): KeyObject {
    let key = this.#keys.get(secret)
    if (key === undefined) {
      if (this.#keys.size >= KEPT_KEYS) this.#keys.clear()
      key = signingKey(secret)
      this.#keys.set(secret, key)
    }
    return key
  }

  /** The `webhook-*` headers of a message, signed with every secret given. */
  headers (secrets: readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
    return {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': secrets.map((s) => signWith(this.of(s), id, timestamp, body)).join(' ')
    }
  }
}
