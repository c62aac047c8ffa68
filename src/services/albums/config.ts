import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { optionGroup, type SectionOf } from '../../config/group.js'
import { option, type Reader } from '../../config/option.js'
import { basePath, size } from '../../config/readers.js'

/** <package>/dist/graphiql under tsx and node alike (src/ and dist/ are siblings). */
export const DEFAULT_GRAPHIQL_DIR = fileURLToPath(new URL('../../../dist/graphiql', import.meta.url))

/** A base path where `/` means no prefix at all: `/graphql`, not `//graphql`. */
const prefix: Reader<string> = (value, name) => {
  const base = basePath(value, name)
  return base === '/' ? '' : base
}

/** `config.albums`: where the album query service is mounted, its data and its query limits. */
export const albumsOptions = optionGroup('albums', Type.Object({
  // '' serves `/graphql` and `/graphiql`.
  base: option(Type.String(), {
    default: '', flag: 'albums-base', value: 'path', env: 'RQS_ALBUMS_BASE', read: prefix, help: 'prefix of the album query service: {albums-base}/graphql, {albums-base}/graphiql (default none)'
  }),
  // Validated when the server is built.
  albumsFile: option(Type.Optional(Type.String()), {
    flag: 'albums-file', value: 'file', env: 'RQS_ALBUMS_FILE', help: 'JSON array of {title, artist, recordNo} replacing the three built-in albums'
  }),
  enabled: option(Type.Boolean(), {
    default: true, flag: 'no-albums', env: 'RQS_NO_ALBUMS', negated: true, help: 'do not mount the album query service'
  }),
  // Introspection included.
  maxDepth: option(Type.Integer({ minimum: 0 }), {
    default: 20, flag: 'graphql-max-depth', env: 'RQS_GRAPHQL_MAX_DEPTH', help: 'deepest selection nesting of a GraphQL document (default 20)'
  }),
  // The cost of a document.
  maxFields: option(Type.Integer({ minimum: 0 }), {
    default: 500, flag: 'graphql-max-fields', env: 'RQS_GRAPHQL_MAX_FIELDS', help: 'most field selections of a GraphQL document, fragments expanded (default 500)'
  }),
  maxAliases: option(Type.Integer({ minimum: 0 }), {
    default: 30, flag: 'graphql-max-aliases', env: 'RQS_GRAPHQL_MAX_ALIASES', help: 'most aliased fields of a GraphQL document (default 30)'
  }),
  // The cost of a document before it runs (./cost.ts: lists by their page, scans by a fixed price); 0: not weighed.
  maxCost: option(Type.Integer({ minimum: 0 }), {
    default: 100_000, flag: 'graphql-max-cost', value: 'n', env: 'RQS_GRAPHQL_MAX_COST', help: 'most a GraphQL document may cost before it runs: each list its first (default 50) times the fields of a record, totalCount and a text search 10000 each (default 100000; 0: no limit)'
  }),
  // The `query` text in UTF-8 bytes.
  maxDocumentBytes: option(Type.Integer({ minimum: 1 }), {
    default: 16 * 1024, flag: 'graphql-max-document-size', value: 'size', env: 'RQS_GRAPHQL_MAX_DOCUMENT_SIZE', read: size, help: 'largest GraphQL document text, e.g. 16kb (default 16kb)'
  }),
  // Whether `__schema` / `__type` queries are allowed.
  introspection: option(Type.Boolean(), {
    default: true, flag: 'no-graphql-introspection', env: 'RQS_GRAPHQL_NO_INTROSPECTION', negated: true, help: 'reject __schema and __type queries (GraphiQL then has no docs or completion)'
  }),
  // How many distinct documents keep their parsed, validated and compiled form (no flag).
  documentCacheSize: option(Type.Integer({ minimum: 1 }), { default: 1000 }),
  // The GraphiQL bundle `npm run build` writes (no flag: tests point it elsewhere).
  graphiqlDir: option(Type.String(), { default: DEFAULT_GRAPHIQL_DIR })
}))

export type AlbumsConfig = SectionOf<typeof albumsOptions>
