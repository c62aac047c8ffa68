/**
 * The origin (`http://host:port`) a client used, from the request's scheme
 * and Host header, or undefined when the Host is not a plain host name or
 * address (anything else could inject text into links and pages).
 */
export function requestOrigin (protocol: string, host: string | undefined): string | undefined {
  return host !== undefined && isPlainHost(host) ? `${protocol}://${host}` : undefined
}

/** Letters, digits, `-`, `.`, `:` and IPv6 brackets only, at most 255 characters. */
export function isPlainHost (host: string): boolean {
  if (host.length === 0 || host.length > 255) return false
  for (let i = 0; i < host.length; i++) {
    const c = host.charCodeAt(i)
    const ok = (c >= 48 && c <= 58) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 46 || c === 91 || c === 93
    if (!ok) return false
  }
  return true
}
