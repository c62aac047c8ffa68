/**
 * Monaco runs its language services in web workers. The build bundles each
 * worker as its own file next to graphiql.js; this tells Monaco to start them
 * from there (same origin, no CDN). It must run before Monaco loads, so
 * main.tsx imports it first.
 */
import type {} from 'monaco-editor' // its types declare window.MonacoEnvironment

const workerFiles: Record<string, string> = {
  json: 'json.worker.js',
  graphql: 'graphql.worker.js'
}

window.MonacoEnvironment = {
  getWorker (_workerId: string, label: string): Worker {
    return new Worker(new URL(workerFiles[label] ?? 'editor.worker.js', import.meta.url), { name: label })
  }
}
