import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { ConfigError } from '../config.js'
import { CollectionChangedError } from '../domain/index.js'
import { OPTIONS, resolveConfig, type Config } from '../options.js'
import { readConfigFile } from '../config/file.js'
import { option } from '../config/option.js'
import { declaredOptions, readSection } from '../config/read.js'
import { buildServer } from '../server.js'
import { directoryLinks } from '../services/index.js'
import { PACKAGE_VERSION } from '../version.js'
import type { CliCommand } from './command.js'
import { EXIT_FAILURE, EXIT_OK, processIo, type CliIo } from './io.js'
import { explainListenError } from './listen-errors.js'
import { defaultLogFormat, logDestination } from './logging.js'
import { startupBlock, startupSummary } from './startup.js'

/** Options of the command itself, not of the server: where more options are written down. */
const commandOptions = Type.Object({
  configFile: option(Type.Optional(Type.String()), {
    flag: 'config', short: 'c', value: 'file', env: 'RQS_CONFIG',
    help: 'read options from a JSON file whose keys are the long option names below, e.g. {"port": 9000, "no-albums": true}; flags and environment variables win over it'
  })
})

/** `rqs serve`: every server option, then --config. */
export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'run the HTTP server: students (REST), addresses (REST), albums (GraphQL), web app and docs',
  usage: 'rqs serve [options]',
  description: 'Serves until SIGINT or SIGTERM, then finishes in-flight requests and exits 0. Every option can also be set by ' +
    'its environment variable or in the --config file; a flag wins over its variable, which wins over the file, which wins over the default. ' +
    'A <duration> is 500ms, 5s, 2m, 1h or 7d (a bare number is milliseconds); a <size> is 1048576, 512kb or 1mb.',
  options: [...OPTIONS, ...declaredOptions([commandOptions])],
  run: async ({ flags, env, io }) => {
    const { configFile } = readSection(commandOptions, { flags, env })
    const file = configFile === undefined ? undefined : readConfigFile(configFile, OPTIONS)
    return await serve(resolveConfig(flags, env, file), io, env)
  }
}

/**
 * Starts the server and resolves with the exit code once SIGINT or SIGTERM
 * has stopped it gracefully (or at once, with 1, if it cannot start).
 */
export async function serve (config: Config, io: CliIo = processIo, env: NodeJS.ProcessEnv = {}): Promise<number> {
  const format = config.logFormat ?? defaultLogFormat(io.stdout)
  let app: FastifyInstance | undefined
  let listening: string[]
  try {
    app = await buildServer(config, { logStream: await logDestination(format, io.stdout, env) })
    listening = await listen(app, config)
  } catch (err) {
    if (err instanceof ConfigError) throw err // a configuration that cannot run (services that overlap): one line, exit 2
    // A declared collection that no longer fits what the durable store holds is a configuration to fix, not an outage.
    if (err instanceof CollectionChangedError) throw new ConfigError(err.message)
    io.stderr.write(`rqs: ${explainListenError(err, config.host, config.port) ?? `could not start: ${(err as Error).message}`}\n`)
    if (app !== undefined) await app.close().catch(() => {})
    return EXIT_FAILURE
  }

  // The signal handlers are in place before the line that says the server is up: a supervisor (or a test)
  // that stops it as soon as it reads that line must not meet the signal's default action, which kills it.
  const stopped = stopOnSignal(app, config, io)
  const summary = startupSummary(PACKAGE_VERSION, listening, config.store, directoryLinks(config))
  if (format === 'pretty') {
    if (['info', 'debug', 'trace'].includes(config.logLevel)) io.stdout.write(startupBlock(summary))
  } else {
    app.log.info({ version: summary.version, listening: summary.listening, store: summary.store, links: summary.links }, `Server listening at ${listening[0] ?? ''}`)
  }
  // After the turn that answers what is already waiting (a readiness probe), not before it.
  if (io.started !== undefined) setImmediate(io.started)
  return await stopped
}

/**
 * Listens, returning every URL it listens on. Fastify's own "Server listening
 * at" lines (one per interface) are held back: the start-up summary says it once.
 */
async function listen (app: FastifyInstance, config: Config): Promise<string[]> {
  const level = app.log.level
  app.log.level = 'silent'
  try {
    const first = await app.listen({ port: config.port, host: config.host })
    const port = new URL(first).port
    const others = app.addresses()
      .flatMap((a) => typeof a === 'string' ? [] : [`http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${port}`])
      .filter((url) => url !== first)
    return [first, ...others]
  } finally {
    app.log.level = level
  }
}

/** Waits for SIGINT or SIGTERM, then closes gracefully; a second signal exits at once. */
async function stopOnSignal (server: FastifyInstance, config: Config, io: CliIo): Promise<number> {
  const signals = io.signals ?? processIo.signals ?? process
  return await new Promise<number>((resolve) => {
    let stopping = false
    const stop = (signal: NodeJS.Signals): void => {
      if (stopping) process.exit(EXIT_FAILURE) // a second signal: stop waiting
      stopping = true
      server.log.info({ signal }, `shutting down on ${signal}: no new connections, finishing in-flight requests`)
      const force = setTimeout(() => {
        server.log.warn('shutdown timeout: closing open connections')
        server.server.closeAllConnections()
      }, config.shutdownTimeoutMs)
      force.unref()
      const done = (code: number): void => {
        clearTimeout(force)
        signals.off('SIGINT', stop)
        signals.off('SIGTERM', stop)
        resolve(code)
      }
      server.close().then(() => {
        server.log.info('shutdown complete: every request finished, the store is closed')
        done(EXIT_OK)
      }, (err: unknown) => {
        server.log.error({ err }, 'error while shutting down')
        done(EXIT_FAILURE)
      })
    }
    signals.on('SIGINT', stop)
    signals.on('SIGTERM', stop)
  })
}
