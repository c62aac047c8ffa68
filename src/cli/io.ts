/** Where the command line writes: the process's stream, or a test's collector. */
export interface Output {
  write: (text: string) => unknown
  /** A terminal: start-up and logs are then for people (pretty) unless --log-format says otherwise. */
  isTTY?: boolean
  /** The file descriptor behind it (process.stdout's is 1): logs are then written by pino's own fast writer. */
  fd?: number
}

/** Where SIGINT and SIGTERM come from: the process, or a test's emitter. */
export interface SignalSource {
  on: (signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void) => unknown
  off: (signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void) => unknown
}

/** What a command may touch besides its arguments and the environment. */
export interface CliIo {
  stdout: Output
  stderr: Output
  /** The process unless given. */
  signals?: SignalSource
  /** Called once `rqs serve` listens: the bundled executable then keeps the code its start compiled. */
  started?: () => void
}

export const processIo: CliIo = { stdout: process.stdout, stderr: process.stderr, signals: process }

/** Exit codes: 0 ok, 1 failed at run time, 2 bad usage or configuration. */
export const EXIT_OK = 0
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2
