import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/*
 * The one way tests run rqs as a separate process: the executable
 * (src/bin.ts) from source under tsx, so no build is needed. Only tests of
 * what a process does (signals, exit codes, kill -9, several instances)
 * should use it; everything else calls main() or startServer() in-process.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const BIN = fileURLToPath(new URL('../../src/bin.ts', import.meta.url))

export interface ServerProcess {
  child: ChildProcess
  origin: string
  /** Every line the process wrote to stdout so far (JSON log lines). */
  lines: string[]
  stderr: () => string
  exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>
  /** Sends `signal` (SIGTERM by default) unless it already exited; resolves with the exit code, or the signal's name. */
  stop: (signal?: NodeJS.Signals) => Promise<number | string>
}

/**
 * Starts `rqs <args>`. The store and log variables of the test's own
 * environment are dropped (CI sets DATABASE_URL for the store tests), so only
 * `args` and `env` configure it.
 */
export function runCli (args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const inherited = { ...process.env }
  delete inherited.DATABASE_URL
  delete inherited.RQS_STORE
  delete inherited.LOG_LEVEL
  return spawn(process.execPath, ['--import', 'tsx', BIN, ...args], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
}

/** Runs `rqs <args>` expecting it to exit by itself; returns its exit code and output. */
export async function runCliToEnd (args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const child = runCli(args, env)
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (c: Buffer) => { stdout += c.toString() })
  child.stderr?.on('data', (c: Buffer) => { stderr += c.toString() })
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)))
  return { code, stdout, stderr }
}

/**
 * Starts `rqs serve` on a free port (--port 0) and resolves once its
 * "Server listening" log line (level info) tells the address.
 */
export async function spawnServer (args: string[] = [], env: NodeJS.ProcessEnv = {}, timeoutMs = 30_000): Promise<ServerProcess> {
  const child = runCli(['serve', '--port', '0', '--log-level', 'info', ...args], env)
  const lines: string[] = []
  let err = ''
  let pending = ''
  child.stderr?.on('data', (c: Buffer) => { err += c.toString() })
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }))
  })
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`server did not start in time: ${err}`)) }, timeoutMs)
    child.stdout?.on('data', (c: Buffer) => {
      pending += c.toString()
      let nl
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl)
        pending = pending.slice(nl + 1)
        lines.push(line)
        const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)
        if (m !== null) { clearTimeout(timer); resolve(m[1] as string) }
      }
    })
    void exited.then(({ code }) => { clearTimeout(timer); reject(new Error(`server exited with ${String(code)} before listening: ${err}`)) })
  })
  const stop = async (signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    const { code, signal: by } = await exited
    return code ?? by ?? -1
  }
  return { child, origin, lines, stderr: () => err, exited, stop }
}
