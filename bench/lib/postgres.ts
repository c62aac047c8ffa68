/**
 * PostgreSQL for the store rows: a fresh database per run (dropped after),
 * and pgbench — the database's own client, the ceiling for a query over one
 * connection per client — pinned to the load core, with its per-transaction
 * log read for the p99.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { percentile } from './stats.js'
import type { LoadResult } from './load.js'
import { LOAD_CPU, startCommand } from './procs.js'

export async function admin (url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try { await client.query(sql) } finally { await client.end() }
}

/** Creates `rqs_bench_<random>` beside the database of `url`; returns its URL and a drop. */
export async function freshDatabase (url: string): Promise<{ url: string, drop: () => Promise<void> }> {
  const name = `rqs_bench_${randomBytes(5).toString('hex')}`
  await admin(url, `CREATE DATABASE ${name}`)
  const u = new URL(url)
  u.pathname = `/${name}`
  return { url: u.toString(), drop: async () => { await admin(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) } }
}

async function pgbench (args: string[], timeoutMs: number): Promise<string> {
  const { stdout, stderr, code } = await startCommand('pgbench', args, LOAD_CPU, timeoutMs).done
  if (code !== 0) throw new Error(`pgbench ${args.join(' ')} failed (exit ${String(code)}): ${stderr}`)
  return stdout + stderr
}

/** pgbench -i: its accounts table for -S (scale 1: 100 000 rows). */
export async function pgbenchInit (url: string): Promise<void> {
  await pgbench(['-i', '-s', '1', '-q', url], 120_000)
}

/**
 * One pgbench run with `clients` connections: the built-in select-only
 * script (`-S`) or a SQL file; bounded by `durationSec`, or in quick mode by
 * `transactions` per client. The PostgreSQL backends are not pinned (nor are they for rqs).
 */
export async function pgbenchRun (url: string, script: { builtin: 'select-only' } | { sql: string }, clients: number, bound: { durationSec: number, transactions?: number }): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'rqs-pgbench-'))
  try {
    const args = ['-n', '-c', String(clients), '-j', '1', '-l', `--log-prefix=${join(dir, 'log')}`]
    if ('builtin' in script) args.push('-S')
    else {
      const file = join(dir, 'script.sql')
      writeFileSync(file, `${script.sql}\n`)
      args.push('-f', file)
    }
    args.push(...(bound.transactions !== undefined ? ['-t', String(bound.transactions)] : ['-T', String(Math.max(1, Math.round(bound.durationSec)))]))
    const out = await pgbench([...args, url], (bound.durationSec + 60) * 1000)
    const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(out)?.[1])
    const processed = Number(/actually processed: (\d+)/.exec(out)?.[1])
    const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? '0')
    // Log lines: client_id transaction_no latency_us script_no epoch epoch_us
    const latencies: number[] = []
    for (const f of readdirSync(dir)) {
      if (!f.startsWith('log')) continue
      for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
        const us = Number(line.split(' ')[2])
        if (Number.isFinite(us) && line !== '') latencies.push(us / 1000)
      }
    }
    return {
      requests: processed,
      seconds: processed / tps,
      rps: tps,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      errors: failed
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
