import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { defaultSecurityConfig, type SecurityConfig } from '../../../src/config/security.js'
import { generateToken, tokenEntry, type Scope } from '../../../src/http/security/tokens.js'
import type { request } from '../../helpers/server.js'

export type Response = Awaited<ReturnType<typeof request>>

/** Security options for makeConfig/startServer: the defaults (all off) with the given ones. */
export function security (overrides: Partial<SecurityConfig>): SecurityConfig {
  return { ...defaultSecurityConfig(), ...overrides }
}

export interface TokensFile<Name extends string = string> {
  path: string
  dir: string
  /** The plain tokens by name, as a client holds them. */
  tokens: Record<Name, string>
  remove: () => Promise<void>
}

/** Writes a tokens file with one fresh token per name, with the given scopes. */
export async function writeTokensFile<Name extends string> (scopes: Record<Name, Scope[]>): Promise<TokensFile<Name>> {
  const dir = await mkdtemp(join(tmpdir(), 'rqs-tokens-'))
  const path = join(dir, 'tokens.json')
  const tokens = {} as Record<Name, string>
  const entries = (Object.entries(scopes) as Array<[Name, Scope[]]>).map(([name, s]) => {
    tokens[name] = generateToken()
    return tokenEntry(tokens[name], name, s)
  })
  await writeFile(path, JSON.stringify({ tokens: entries }))
  return { path, dir, tokens, remove: async () => { await rm(dir, { recursive: true, force: true }) } }
}

export function bearer (token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` }
}

/** The error body in the shape a path's clients read, with the code it carries (undefined for the v1 envelope, which has none). */
export type Shape = 'envelope' | 'problem' | 'graphql'

export function expectShape (res: Response, shape: Shape, status: number, code: string): void {
  expect(res.status, res.text).toBe(status)
  switch (shape) {
    case 'envelope':
      expect(res.headers.get('content-type')).toMatch(/json/)
      expect(res.body).toEqual({ isSuccessful: false, body: expect.any(String) })
      break
    case 'problem':
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(res.body).toMatchObject({ status, type: expect.stringMatching(new RegExp(`/errors/${code}$`)) })
      expect(res.body.errors[0].error).toBe(code)
      break
    case 'graphql':
      expect(res.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/)
      expect(res.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code } }] })
      break
  }
}
