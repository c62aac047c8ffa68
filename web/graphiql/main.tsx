import './monaco-workers.js'
import { createGraphiQLFetcher, type Fetcher } from '@graphiql/toolkit'
import { GraphiQL } from 'graphiql'
import { getOperationAST } from 'graphql'
import { createClient } from 'graphql-sse'
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

const http = createGraphiQLFetcher({ url: endpoint })
// Subscriptions stream over SSE with the graphql-sse protocol, beside the endpoint (issue 23).
const stream = createClient({ url: `${endpoint}/stream` })
const fetcher: Fetcher = (params, options) => {
  const document = options?.documentAST
  const operation = document === undefined ? null : getOperationAST(document, params.operationName ?? undefined)
  return operation?.operation === 'subscription' ? stream.iterate({ ...params, operationName: params.operationName ?? undefined }) : http(params, options)
}

createRoot(root).render(
  <StrictMode>
    <GraphiQL fetcher={fetcher} defaultQuery={SAMPLE_QUERY} />
  </StrictMode>
)
