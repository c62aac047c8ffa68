import { expect } from 'vitest'
import { request } from '../../helpers/server.js'

export const MAX_ID = '9223372036854775807'

export const berlin = { name: 'Ada Lovelace', city: 'Berlin', postalCode: '10115' }
export const hamburg = { name: 'Alan Turing', city: 'Hamburg', postalCode: '20095' }

/** Sends raw JSON text (so ids beyond 2^53 keep every digit) to a URL. */
export async function sendRaw (url: string, method: string, text: string, headers: Record<string, string> = {}): ReturnType<typeof request> {
  return await request(url, { method, body: text, headers: { 'content-type': 'application/json', ...headers } })
}

/** Asserts an RFC 9457 problem with the given status and top-level code; returns the body. */
export function expectProblem (res: Awaited<ReturnType<typeof request>>, status: number, code: string): any {
  expect(res.status, res.text).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  expect(res.body.status).toBe(status)
  expect(res.body.type).toMatch(new RegExp(`/errors/${code}$`))
  expect(Array.isArray(res.body.errors)).toBe(true)
  return res.body
}

/** The codes of a problem's `errors` entries. */
export function entryCodes (body: any): string[] {
  return body.errors.map((e: any) => e.error)
}
