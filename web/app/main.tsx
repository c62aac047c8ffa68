/**
 * The rqs web application (served at /app/): students and addresses, kept
 * live by the change feed. Bundled by scripts/build-app.ts.
 */
import { render } from 'preact'
import type { AppPageConfig } from '../../src/services/app/page-config.js'
import { App } from './components/App.js'

const root = document.getElementById('app')
if (root !== null) {
  const config = JSON.parse(root.dataset.config ?? '{}') as AppPageConfig
  root.textContent = ''
  render(<App config={config} />, root)
}
