import { createHmac, randomBytes } from 'node:crypto'

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

/** One `v1,…` signature of a message with one secret. */
export function sign (secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

/** The `webhook-*` headers of a message, signed with every secret given. */
export function signedHeaders (secrets: readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => sign(s, id, timestamp, body)).join(' ')
  }
}
