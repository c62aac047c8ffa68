import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { createServer, type Server, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

export interface ServerProcess {
  origin: string
  child: ChildProcess
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>
  stop: (signal?: NodeJS.Signals) => Promise<number | string>
}

/**
 * A child `rqs serve` process on a free port (port 0; the bound address is
 * read from its "Server listening at" log line). The environment is the
 * test's own minus the store variables, so only `args` choose the store.
 */
export async function spawnServer (args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv }
  if (!('DATABASE_URL' in extraEnv)) delete env.DATABASE_URL
  if (!('RQS_STORE' in extraEnv)) delete env.RQS_STORE
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', '--log-level', 'info', ...args], {
    cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe']
  })
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => { resolve(code ?? signal ?? -1) })
  })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
  const origin = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line)
      if (m !== null) resolve(m[1] as string)
    })
    void exited.then((code) => { reject(new Error(`rqs serve exited (${code}) before listening: ${stderr}`)) })
  })
  return {
    origin,
    child,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return await exited
    }
  }
}

/** Runs `rqs serve` expecting it to exit by itself; returns its exit code and stderr. */
export async function runServeToExit (args: string[]): Promise<{ code: number | null, stderr: string }> {
  const env = { ...process.env }
  delete env.DATABASE_URL
  delete env.RQS_STORE
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve', '--port', '0', ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const [code] = await once(child, 'exit') as [number | null]
  return { code, stderr }
}

export interface TcpProxy {
  port: number
  /** Connections accepted since start (refused ones included). */
  readonly attempts: number
  /** Drops every open connection and refuses new ones, as a database outage would. */
  cut: () => void
  restore: () => void
  close: () => Promise<void>
}

/** A loopback TCP proxy to `target`, which a test can cut and restore. */
export async function startTcpProxy (targetHost: string, targetPort: number): Promise<TcpProxy> {
  const open = new Set<Socket>()
  let up = true
  let attempts = 0
  const server: Server = createServer((client) => {
    attempts++
    if (!up) { client.destroy(); return }
    const upstream = new (client.constructor as typeof Socket)()
    open.add(client)
    open.add(upstream)
    const drop = (): void => { client.destroy(); upstream.destroy(); open.delete(client); open.delete(upstream) }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    upstream.connect(targetPort, targetHost, () => { client.pipe(upstream).pipe(client) })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('proxy did not bind')
  return {
    port: address.port,
    get attempts () { return attempts },
    cut: () => {
      up = false
      for (const s of open) s.destroy()
      open.clear()
    },
    restore: () => { up = true },
    close: async () => {
      up = false
      for (const s of open) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

/** A loopback port with nothing listening on it. */
export async function closedPort (): Promise<number> {
  const server = createServer()
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
