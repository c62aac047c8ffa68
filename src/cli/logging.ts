import type { LogFormat } from '../config.js'
import type { Output } from './io.js'

/** Where the server's logger writes each line (pino calls `write` with one JSON line). */
export interface LogDestination {
  write: (line: string) => void
}

/** The log format when none is chosen: people read a terminal, programs read everything else. */
export function defaultLogFormat (out: Output): LogFormat {
  return out.isTTY === true ? 'pretty' : 'json'
}

/** Keys the one-line pretty messages already show (an access line's, a signal or a seed file named in its message). */
const SHOWN_KEYS = ['method', 'url', 'statusCode', 'responseTime', 'bytes', 'signal', 'seeded']

/**
 * The logger's destination for a format. JSON to the process's stdout is
 * left to pino's own writer (undefined): nothing of pino-pretty is even
 * loaded then, so JSON logging costs what it cost before. Pretty lines are
 * formatted in this thread, synchronously, so they keep their order with
 * what the command line writes itself (the start-up block).
 */
export async function logDestination (format: LogFormat, out: Output, env: NodeJS.ProcessEnv): Promise<LogDestination | undefined> {
  if (format === 'json') return out.fd === 1 ? undefined : { write: (line) => { out.write(line) } }
  const { prettyFactory } = await import('pino-pretty')
  const prettify = prettyFactory({
    // NO_COLOR (no-color.org) and anything but a terminal get plain text.
    colorize: out.isTTY === true && env.NO_COLOR === undefined,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', 'reqId', ...SHOWN_KEYS].join(','),
    messageFormat: (log, messageKey) => {
      const message = String(log[messageKey] ?? '')
      const request = `${String(log.method)} ${String(log.url)} ${String(log.statusCode)} ${formatMs(log.responseTime)} ${String(log.bytes ?? '-')} B`
      const access = typeof log.statusCode !== 'number' ? message : message === 'request completed' ? request : `${message}: ${request}`
      return typeof log.reqId === 'string' ? `${access} [${log.reqId}]` : access
    }
  })
  return { write: (line) => { out.write(prettify(line)) } }
}

function formatMs (value: unknown): string {
  return typeof value === 'number' ? `${value.toFixed(1)} ms` : '- ms'
}
