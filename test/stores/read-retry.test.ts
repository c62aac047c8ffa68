import { describe, expect, it } from 'vitest'
import { DatabaseError, type Pool } from 'pg'
import { readQuery } from '../../src/stores/postgres/read-retry.js'

/** A pool whose first `failures` queries fail with `error`, then answer; counts the attempts. */
function failingPool (max: number, failures: number, error: () => Error): { pool: Pool, attempts: () => number } {
  let attempts = 0
  const pool = {
    options: { max },
    query: async () => {
      attempts++
      if (attempts <= failures) throw error()
      return { rows: [{ ok: true }] }
    }
  } as unknown as Pool
  return { pool, attempts: () => attempts }
}

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code })
const ended = (code: string): DatabaseError => Object.assign(new DatabaseError('terminating connection due to administrator command', 0, 'error'), { code })

/**
 * A read that met a connection the server had already ended (an idle one in
 * the pool after a restart) goes out again on another; a timeout does not:
 * the database is slow or away, and sending it again only makes the caller
 * wait a multiple of the timeout for the same answer.
 */
describe('PostgreSQL reads sent again on another connection', () => {
  it.each([
    ['a connection reset', () => withCode('read ECONNRESET', 'ECONNRESET')],
    ['a broken pipe', () => withCode('write EPIPE', 'EPIPE')],
    ['a connection the server ended (admin_shutdown)', () => ended('57P01')],
    ['a connection the server ended (crash_shutdown)', () => ended('57P02')],
    ['a connection that ended under the query', () => new Error('Connection terminated unexpectedly')]
  ])('sends a read again after %s, at most once per connection of the pool', async (_, error) => {
    const recovering = failingPool(3, 2, error)
    expect((await readQuery(recovering.pool, { text: 'SELECT 1' })).rows).toEqual([{ ok: true }])
    expect(recovering.attempts()).toBe(3)
    const dead = failingPool(3, 100, error)
    await expect(readQuery(dead.pool, { text: 'SELECT 1' })).rejects.toThrow()
    expect(dead.attempts()).toBe(4) // the pool's 3 connections and one new
  })

  it.each([
    ['a new connection that timed out', () => new Error('Connection terminated due to connection timeout')],
    ['a query that timed out', () => new Error('Query read timeout')],
    ['a full pool that gave no connection in time', () => new Error('timeout exceeded when trying to connect')],
    ['a statement the server refused', () => Object.assign(new DatabaseError('relation "x" does not exist', 0, 'error'), { code: '42P01' })]
  ])('does not send it again after %s', async (_, error) => {
    const { pool, attempts } = failingPool(3, 100, error)
    await expect(readQuery(pool, { text: 'SELECT 1' })).rejects.toThrow()
    expect(attempts()).toBe(1)
  })
})
