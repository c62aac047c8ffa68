import { DatabaseError, type Pool, type QueryConfig, type QueryResult, type QueryResultRow } from 'pg'

/** SQLSTATEs a server sends to a connection it ends: admin_shutdown (pg_terminate_backend, a restart), crash_shutdown. */
const ENDED_BY_SERVER = new Set(['57P01', '57P02'])

/**
 * True when a pooled connection turned out to be dead as a statement was
 * sent on it: the server had ended it (a restart, a failover,
 * pg_terminate_backend) while it sat idle in the pool, and the pool had not
 * yet seen the socket close. A timeout is not one of these: it is not retried.
 */
function endedConnection (err: unknown): boolean {
  if (err instanceof DatabaseError) return ENDED_BY_SERVER.has(err.code ?? '')
  if (!(err instanceof Error)) return false
  const code = (err as { code?: unknown }).code
  // "Connection terminated due to connection timeout" is the pool giving up on a new connection: a timeout.
  return code === 'ECONNRESET' || code === 'EPIPE' || (/^Connection terminated/.test(err.message) && !/timeout/.test(err.message))
}

/**
 * A read on the pool, sent again on another connection when the one it met
 * was already ended by the server. A read changes nothing, so sending it
 * twice is safe; writes are never retried here (their outcome may be
 * unknown). At most one attempt per connection the pool can hold: after a
 * database restart every idle connection is dead, and a request should not
 * fail for each of them.
 */
export async function readQuery<Row extends QueryResultRow> (pool: Pool, query: QueryConfig): Promise<QueryResult<Row>> {
  const attempts = Math.max(1, pool.options.max ?? 10) + 1
  for (let attempt = 1; ; attempt++) {
    try {
      return await pool.query<Row>(query)
    } catch (err) {
      if (attempt >= attempts || !endedConnection(err)) throw err
    }
  }
}
