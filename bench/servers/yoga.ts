// Baseline: GraphQL Yoga 5 on node:http with the same schema and albums as rqs (no GraphiQL, no logging).
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createSchema, createYoga } from 'graphql-yoga'
import { ALBUMS, announce, exitOnSignal } from './shared.js'

const typeDefs = readFileSync(new URL('../../src/services/albums/schema.graphql', import.meta.url), 'utf8')
const schema = createSchema({
  typeDefs,
  resolvers: {
    Query: {
      albums: (_: unknown, args: { titleFilter?: string | null }) =>
        args.titleFilter == null ? ALBUMS : ALBUMS.filter((a) => a.title.includes(args.titleFilter as string))
    }
  }
})
const yoga = createYoga({ schema, graphiql: false, logging: false, landingPage: false })
// Yoga's Node handler answers its own errors; the listener's promise is not the server's business.
// eslint-disable-next-line @typescript-eslint/no-misused-promises
const server = createServer(yoga)
exitOnSignal(() => { server.close() })
server.listen(0, '127.0.0.1', () => announce(server))
