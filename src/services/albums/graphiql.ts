import { existsSync } from 'node:fs'
import { join } from 'node:path'
import escapeHtml from 'escape-html'

/** The files the esbuild step (scripts/build-graphiql.ts) writes; the page needs these two, the workers load on demand. */
export const GRAPHIQL_SCRIPT = 'graphiql.js'
export const GRAPHIQL_STYLES = 'graphiql.css'

export function graphiqlBundleExists (dir: string): boolean {
  return existsSync(join(dir, GRAPHIQL_SCRIPT)) && existsSync(join(dir, GRAPHIQL_STYLES))
}


/**
 * The GraphiQL page. It is rendered once at start-up because the endpoint and
 * the asset paths depend on the configured base; everything it loads comes
 * from `assetsPath` on this server (no CDN).
 */
export function graphiqlPage (endpoint: string, assetsPath: string): string {
  const assets = escapeHtml(assetsPath)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL · rqs</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets}${GRAPHIQL_STYLES}">
<style>html, body, #graphiql { height: 100%; margin: 0; }
/* A phone: the query above the result, each half the height (side by side the result was 52 px wide). */
@media (max-width: 640px) {
  .graphiql-sessions > div:has(> .graphiql-response) { flex-direction: column; }
  .graphiql-sessions .graphiql-horizontal-drag-bar { display: none; }
  .graphiql-sessions .graphiql-editors, .graphiql-sessions .graphiql-response { flex: 1 1 50% !important; min-width: 0; min-height: 0; }
}</style>
</head>
<body>
<div id="graphiql" data-endpoint="${escapeHtml(endpoint)}">Loading GraphiQL…</div>
<script type="module" src="${assets}${GRAPHIQL_SCRIPT}"></script>
</body>
</html>
`
}

export const BUNDLE_MISSING_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GraphiQL not built</title></head>
<body><h1>GraphiQL is not built</h1><p>The GraphiQL bundle is missing from this installation. Run <code>npm run build</code> (or <code>npm ci</code>) and restart.</p></body></html>
`
