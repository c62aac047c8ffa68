import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { escapeHtml, renderPage } from '../../http/html/index.js'
import type { AppPageConfig } from './page-config.js'

export const APP_PATH = '/app/'

/** The name of the hashed script the build wrote (dist/app/manifest.json), or undefined when the app is not built. */
export function builtScript (dir: string): string | undefined {
  const manifest = join(dir, 'manifest.json')
  if (!existsSync(manifest)) return undefined
  const { script } = JSON.parse(readFileSync(manifest, 'utf8')) as { script?: unknown }
  return typeof script === 'string' && existsSync(join(dir, script)) ? script : undefined
}

/** The application's one HTML page: the shared layout, a mount point carrying the configuration, the script. */
export function appPage (config: AppPageConfig, script: string): string {
  return renderPage({
    title: 'rqs — records',
    current: APP_PATH,
    scripts: [APP_PATH + script],
    body: `<div id="app" data-config="${escapeHtml(JSON.stringify(config))}">
<p>Loading the application…</p>
<noscript><p>This application needs JavaScript. The services themselves can be used without it: see the <a href="/docs/api">API reference</a>.</p></noscript>
</div>`
  })
}

export const APP_NOT_BUILT_PAGE = renderPage({
  title: 'rqs — application not built',
  current: APP_PATH,
  body: '<h1>The web application is not built</h1><p>Its bundle is missing from this installation. Run <code>npm run build</code> (or <code>npm ci</code>) and restart.</p>'
})
