import escape from 'escape-html'
import { renderPage } from '../../http/html/index.js'
import type { DirectoryLink } from '../types.js'

/** What the home service is given (and the landing page shows). */
export interface HomeOptions {
  name: string
  version: string
  /** The services' own links; the directory adds itself, the catalogue, the API documents and health. */
  links: readonly DirectoryLink[]
  /** The newest representation's media type, for the landing page's example. */
  newestType: string
}

/** A prominent way into the web application, when it is served. */
function appLink (opts: HomeOptions): string {
  const app = opts.links.find((l) => l.rel === 'app')
  return app === undefined ? '' : `\n  <p class="cta"><a href="${escape(app.href)}"><strong>Open the web application</strong></a> to list, search, add, edit and delete the records of every collection.</p>`
}

/** Stands in for the request's origin in the rendered page. */
const ORIGIN = '\u0000origin\u0000'

/**
 * The landing page, rendered once; each request fills in its origin (from
 * its Host header, when that is a plain host) so the snippets run as shown.
 */
export function landingPage (opts: HomeOptions): (origin: string | undefined) => string {
  const [before, ...rest] = renderLanding(opts).split(ORIGIN)
  return (origin) => {
    const shown = escape(origin ?? 'http://127.0.0.1:8080')
    return (before ?? '') + rest.map((part) => shown + part).join('')
  }
}

/**
 * The landing page a browser gets at `/`: what runs here and where to go.
 * In the site's one look (src/http/html/layout.ts): no inline script or style.
 */
function renderLanding (opts: HomeOptions): string {
  const items = opts.links
    .filter((l) => l.rel !== 'self')
    .map((l) => `<li><a href="${escape(l.href)}">${escape(l.title)}</a> <code>${escape(l.href)}</code></li>`)
    .join('\n        ')
  return renderPage({
    title: `${opts.name} — Record and Query Services`,
    current: '/',
    body: `<h1>${escape(opts.name)}</h1>
  <p class="sub">Record and Query Services · version ${escape(opts.version)}</p>
  <p>This server keeps collections of records — students, addresses and any you declare — over REST
  (JSON, NDJSON, CSV), GraphQL and a change feed, and answers the album query service (GraphQL). Start here:</p>${appLink(opts)}
  <ul>
        ${items}
  </ul>
  <h2>Try it</h2>
  <pre>curl -s -X POST ${ORIGIN}${escape(opts.links.find((l) => l.rel === 'students')?.href ?? '/students')} \\
  -H 'content-type: application/json' \\
  -d '{"firstName":"Ada","lastName":"Lovelace","age":36}'</pre>
  <p>Versions: ask for <code>${escape(opts.newestType)}</code> in <code>Accept</code>, or use the <code>/v2/</code> paths.
  Machine clients: <code>curl -H 'accept: application/json' ${ORIGIN}/</code> returns these links as JSON.</p>`
  })
}
