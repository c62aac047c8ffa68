import pg from 'pg'

/**
 * Ends the server session `pid` from a new connection (pg_terminate_backend,
 * waiting up to `waitMs` for it to exit), so that a write whose answer was
 * lost can no longer run or commit later: a statement still held by the
 * network then reaches a closed session. Returns true when the session is
 * gone, false when the server could not be reached to end it (a frozen
 * network: then the held write may still land when the network returns).
 *
 * pg's own cancel request (`Client#cancel`) only interrupts a statement that
 * is running; it does nothing to one that has not arrived yet, hence the
 * terminate. Every step is bounded by the pool's connect timeout.
 */
export async function endSession (pool: pg.Pool, pid: number | null | undefined, waitMs: number): Promise<boolean> {
  if (pid === null || pid === undefined) return false
  const options = pool.options as pg.PoolConfig
  const client = new pg.Client({
    connectionString: options.connectionString,
    connectionTimeoutMillis: options.connectionTimeoutMillis,
    query_timeout: (options.connectionTimeoutMillis ?? 5000) + waitMs,
    application_name: 'rqs-settle'
  })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('SELECT pg_terminate_backend($1, $2)', [pid, waitMs])
    // false above means "no such session" or "still exiting after waitMs": ask which.
    const { rows } = await client.query<{ alive: boolean }>('SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1) AS alive', [pid])
    return rows[0]?.alive === false
  } catch {
    return false
  } finally {
    void client.end().catch(() => {})
  }
}

/** The backend process id of a connection (pg sets it at start-up; its types do not declare it). */
export function backendPid (client: pg.ClientBase): number | null {
  return (client as unknown as { processID?: number | null }).processID ?? null
}
