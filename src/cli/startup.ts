import { resolve } from 'node:path'
import type { StoreConfig } from '../config.js'
import type { DirectoryLink } from '../services/types.js'

/** What start-up reports: one block for people, the same facts as fields of one JSON log line for programs. */
export interface StartupSummary {
  version: string
  /** Every URL the server listens on; the first is the one the links use. */
  listening: string[]
  store: { kind: StoreConfig['kind'], location?: string }
  /** The entry point's directory as absolute URLs, by relation (the same names as `GET /`). */
  links: Record<string, string>
}

/** The connection string with its password (in the user part or a `password` parameter) shown as `***`. */
export function withoutPassword (url: string): string {
  let parsed: URL
  try { parsed = new URL(url) } catch { return '(unparsable URL hidden)' }
  if (parsed.password !== '') parsed.password = '***'
  for (const key of ['password', 'sslpassword']) if (parsed.searchParams.has(key)) parsed.searchParams.set(key, '***')
  return parsed.href
}

export function describeStore (store: StoreConfig): StartupSummary['store'] {
  if (store.kind === 'sqlite') return { kind: 'sqlite', location: resolve(store.path) }
  if (store.kind === 'postgres') return { kind: 'postgres', location: withoutPassword(store.url) }
  return { kind: store.kind }
}

export function startupSummary (version: string, listening: string[], store: StoreConfig, directory: readonly DirectoryLink[]): StartupSummary {
  const origin = listening[0] ?? ''
  return {
    version,
    listening,
    store: describeStore(store),
    links: Object.fromEntries(directory.map((link) => [link.rel, new URL(link.href, origin).href]))
  }
}

/** The pages a person opens first, in this order, by their directory relation. */
const PAGES: ReadonlyArray<[rel: string, label: string]> = [
  ['self', 'landing page'], ['app', 'web app'], ['albums-editor', 'GraphiQL'], ['service-doc', 'API docs'], ['status', 'health']
]
/** Linked from the landing page, so left out of the block (they are in the JSON line). */
const NOT_IN_BLOCK = new Set(['errors', 'help', 'service-desc'])

/**
 * The block a terminal shows at start-up: the version, where it listens, the
 * store, then the services (every other directory link, so a new service
 * shows up by itself) and the pages.
 */
export function startupBlock (summary: StartupSummary): string {
  const pageRels = new Set(PAGES.map(([rel]) => rel))
  const services = Object.entries(summary.links).filter(([rel]) => !pageRels.has(rel) && !NOT_IN_BLOCK.has(rel))
  const pages = PAGES.flatMap(([rel, label]) => summary.links[rel] === undefined ? [] : [[label, summary.links[rel]] as const])
  const width = Math.max(...[...services, ...pages].map(([label]) => label.length)) + 2
  const section = (title: string, rows: ReadonlyArray<readonly [string, string]>): string[] =>
    rows.map(([label, url], i) => `  ${(i === 0 ? title : '').padEnd(10)}${label.padEnd(width)}${url}`)
  const { store } = summary
  const where = store.kind === 'memory' ? 'memory (records are lost when rqs stops)' : `${store.kind} ${store.location ?? ''}`
  const [first = '', ...others] = summary.listening
  return [
    `rqs ${summary.version} is listening on ${first}${others.length === 0 ? '' : ` (also ${others.join(', ')})`}`,
    '',
    `  ${'Store'.padEnd(10)}${where}`,
    ...section('Services', services),
    ...section('Open', pages),
    '',
    'Press Ctrl+C to stop.'
  ].join('\n') + '\n'
}
