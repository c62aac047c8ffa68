import './monaco-workers.js'
import { createGraphiQLFetcher } from '@graphiql/toolkit'
import { GraphiQL } from 'graphiql'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import 'graphiql/style.css'

/** The editor opens with this query when the browser has none saved. */
const SAMPLE_QUERY = `# Albums, optionally filtered by title. Ctrl+Enter runs it.
query Albums($titleFilter: String) {
  albums(titleFilter: $titleFilter) {
    title
    artist
    recordNo
  }
}
`

const root = document.getElementById('graphiql')
if (root === null) throw new Error('the page has no #graphiql element')
// The server renders the endpoint into the page, so a moved --albums-base needs no rebuild.
const endpoint = new URL(root.dataset.endpoint ?? '/graphql', window.location.href).href

createRoot(root).render(
  <StrictMode>
    <GraphiQL fetcher={createGraphiQLFetcher({ url: endpoint })} defaultQuery={SAMPLE_QUERY} />
  </StrictMode>
)
