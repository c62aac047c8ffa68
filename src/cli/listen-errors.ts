/**
 * Why the server could not listen, in one line that names the host or port
 * and the option to change, instead of Node's bare `getaddrinfo ENOTFOUND x`.
 * Undefined for errors that are not about the address (reported as they are).
 */
export function explainListenError (err: unknown, host: string, port: number): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_NONAME':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
      return `cannot listen on "${host}": no such host (the name does not resolve to an address; check --host / HOST)`
    case 'EAI_AGAIN':
      return `cannot listen on "${host}": the name could not be looked up now (no DNS answer; check --host / HOST or the network)`
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${host}: not an address of this machine (use 127.0.0.1, 0.0.0.0 for every interface, or one of its own addresses; --host / HOST)`
    case 'EADDRINUSE':
      return `cannot listen on ${host} port ${port}: the port is in use (choose another with --port / PORT, or 0 for a free one)`
    case 'EACCES':
      return `cannot listen on ${host} port ${port}: permission denied (ports below 1024 need privileges; --port / PORT)`
    default:
      return undefined
  }
}
