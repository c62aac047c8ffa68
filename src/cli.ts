import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ConfigError, OPTIONS, resolveConfig, type Config } from './config.js'
import { buildServer } from './server.js'
import { PACKAGE_VERSION as version } from './version.js'

/** Exit codes: 0 ok, 1 failed at run time, 2 bad usage or configuration. */
export const EXIT_OK = 0
export const EXIT_FAILURE = 1
export const EXIT_USAGE = 2

/** Where the command line writes; the process's streams unless a test collects the text. */
export interface CliIo {
  stdout: { write: (text: string) => unknown }
  stderr: { write: (text: string) => unknown }
}

const processIo: CliIo = { stdout: process.stdout, stderr: process.stderr }

function usage (): string {
  const width = Math.max(...OPTIONS.map((o) => o.flag.length)) + 4
  const lines = OPTIONS.map((o) => {
    const env = o.env === undefined ? '' : ` [env ${o.env}]`
    return `  --${o.flag.padEnd(width)}${o.help}${env}`
  })
  return [
    `rqs ${version} — Record and Query Services`,
    '',
    'Usage: rqs serve [options]',
    '       rqs --help | --version',
    '',
    'Options:',
    ...lines,
    `  --${'help'.padEnd(width)}show this text`,
    `  --${'version'.padEnd(width)}print the version`,
    ''
  ].join('\n')
}

/** What a command line asks for: serving with a configuration, or exiting at once with a code. */
export type Command = { serve: Config } | { exit: number }

/**
 * Reads the arguments and the environment; prints help, the version or what
 * is wrong. Nothing is started, so every usage error can be tested in-process.
 */
export function readCommandLine (argv: string[], env: NodeJS.ProcessEnv, io: CliIo = processIo): Command {
  const options: ParseArgsConfig['options'] = { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } }
  for (const o of OPTIONS) options[o.flag] = { type: o.takesValue ? 'string' : 'boolean' }

  let parsed
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true })
  } catch (err) {
    io.stderr.write(`rqs: ${(err as Error).message}\n\n${usage()}`)
    return { exit: EXIT_USAGE }
  }
  const { values, positionals } = parsed
  if (values.help === true) { io.stdout.write(usage()); return { exit: EXIT_OK } }
  if (values.version === true) { io.stdout.write(`${version}\n`); return { exit: EXIT_OK } }
  const command = positionals[0]
  if (command !== 'serve' || positionals.length > 1) {
    const what = command === undefined ? 'a command is required' : `unknown command "${positionals.join(' ')}"`
    io.stderr.write(`rqs: ${what}\n\n${usage()}`)
    return { exit: EXIT_USAGE }
  }

  try {
    return { serve: resolveConfig(values, env) }
  } catch (err) {
    if (err instanceof ConfigError) {
      io.stderr.write(`rqs: ${err.message}\n`)
      return { exit: EXIT_USAGE }
    }
    throw err
  }
}

/**
 * Starts the server and resolves with the exit code once SIGINT or SIGTERM
 * has stopped it gracefully (or at once, with 1, if it cannot start).
 */
export async function serve (config: Config, io: CliIo = processIo): Promise<number> {
  let app
  try {
    app = await buildServer(config)
    await app.listen({ port: config.port, host: config.host })
  } catch (err) {
    io.stderr.write(`rqs: could not start: ${(err as Error).message}\n`)
    if (app !== undefined) await app.close().catch(() => {})
    return EXIT_FAILURE
  }

  const server = app
  return await new Promise<number>((resolve) => {
    let stopping = false
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) process.exit(EXIT_FAILURE) // a second signal: stop waiting
      stopping = true
      server.log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests')
      const force = setTimeout(() => {
        server.log.warn('shutdown timeout: closing open connections')
        server.server.closeAllConnections()
      }, config.shutdownTimeoutMs)
      force.unref()
      server.close().then(() => { clearTimeout(force); resolve(EXIT_OK) }, (err: unknown) => {
        server.log.error({ err }, 'error while shutting down')
        resolve(EXIT_FAILURE)
      })
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
}

/** `rqs <argv>`: resolves with the exit code. Importing this module does nothing; src/bin.ts runs it. */
export async function main (argv: string[], env: NodeJS.ProcessEnv, io: CliIo = processIo): Promise<number> {
  const command = readCommandLine(argv, env, io)
  return 'exit' in command ? command.exit : await serve(command.serve, io)
}
