import escape from 'escape-html'
import type { HomeOptions } from './index.js'

/** A prominent way into the web application, when it is served. */
function appLink (opts: HomeOptions): string {
  const app = opts.links.find((l) => l.rel === 'app')
  return app === undefined ? '' : `\n  <p class="cta"><a href="${escape(app.href)}"><strong>Open the web application</strong></a> to list, search, add, edit and delete students and addresses.</p>`
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
 * Self-contained (inline CSS, no script, nothing from elsewhere).
 */
function renderLanding (opts: HomeOptions): string {
  const items = opts.links
    .filter((l) => l.rel !== 'self')
    .map((l) => `<li><a href="${escape(l.href)}">${escape(l.title)}</a> <code>${escape(l.href)}</code></li>`)
    .join('\n        ')
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escape(opts.name)} — Record and Query Services</title>
  <style>
    :root { color-scheme: light dark; --accent: #2563eb; }
    body { font: 16px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 46rem; margin: 3rem auto; padding: 0 1.25rem; }
    h1 { margin-bottom: 0; } .sub { margin-top: .25rem; opacity: .75; }
    ul { padding-left: 1.2rem; } li { margin: .35rem 0; }
    a { color: var(--accent); } code { font-size: .9em; opacity: .7; margin-left: .4rem; }
    pre { background: rgba(127,127,127,.12); padding: .8rem 1rem; border-radius: .5rem; overflow-x: auto; }
  </style>
</head>
<body>
  <h1>${escape(opts.name)}</h1>
  <p class="sub">Record and Query Services · version ${escape(opts.version)}</p>
  <p>This server runs a student records service and an address book (REST, JSON) and an album query
  service (GraphQL). Start here:</p>${appLink(opts)}
  <ul>
        ${items}
  </ul>
  <h2>Try it</h2>
  <pre>curl -s -X POST ${ORIGIN}${escape(opts.links.find((l) => l.rel === 'students')?.href ?? '/students')} \\
  -H 'content-type: application/json' \\
  -d '{"firstName":"Ada","lastName":"Lovelace","age":36}'</pre>
  <p>Versions: ask for <code>${escape(opts.newestType)}</code> in <code>Accept</code>, or use the <code>/v2/</code> paths.
  Machine clients: <code>curl -H 'accept: application/json' ${ORIGIN}/</code> returns these links as JSON.</p>
</body>
</html>
`
}
