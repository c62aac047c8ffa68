import { EventEmitter } from 'node:events'
import { main, type CliIo } from '../../src/cli.js'

/** Runs the command line in this process, collecting what it writes; resolves with the exit code and the text. */
export async function runMain (argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number, stdout: string, stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: { write: (text: string) => { stdout += text } },
    stderr: { write: (text: string) => { stderr += text } }
  }
  const code = await main(argv, env, io)
  return { code, stdout, stderr }
}

export interface ServingMain {
  /** Where it listens, read from its start-up output. */
  origin: string
  stdout: () => string
  stderr: () => string
  /** Sends SIGTERM (to this run only, not to the test process) and resolves with the exit code. */
  stop: () => Promise<number>
}

/**
 * Runs `rqs serve …` in this process until stop(). Its signals come from an
 * emitter of its own, and with `tty` its stdout claims to be a terminal, as
 * a person's would. It is ready when its start-up output names its origin or,
 * given a `port` (for runs that print nothing), when that port answers.
 */
export async function serveMain (args: string[], env: NodeJS.ProcessEnv = {}, { tty = false, port = 0 } = {}): Promise<ServingMain> {
  let stdout = ''
  let stderr = ''
  const output = new EventEmitter()
  const signals = new EventEmitter()
  const io: CliIo = {
    stdout: { isTTY: tty, write: (text: string) => { stdout += text; output.emit('text') } },
    stderr: { write: (text: string) => { stderr += text } },
    signals
  }
  const exited = main(['serve', '--port', String(port), ...args], env, io)
  const origin = await new Promise<string>((resolve, reject) => {
    const look = (): void => {
      const match = /listening (?:on|at) (http:\/\/[^\s"]+?)(?=[\s"]|$)/.exec(stdout)
      if (match !== null) { output.off('text', look); resolve(match[1] as string) }
    }
    output.on('text', look)
    if (port !== 0) void answers(`http://127.0.0.1:${port}`).then(resolve)
    void exited.then((code) => { reject(new Error(`rqs serve exited with ${code} before listening: ${stderr}`)) }, reject)
  })
  return {
    origin,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => { signals.emit('SIGTERM', 'SIGTERM'); return await exited }
  }
}

async function answers (origin: string): Promise<string> {
  for (;;) {
    try {
      await fetch(`${origin}/healthz`)
      return origin
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}
