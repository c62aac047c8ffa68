// Baseline: Apollo Server 5 standalone with the same schema and albums as rqs. CSRF prevention is
// off so that a plain GET query is answered, as rqs answers it.
import { readFileSync } from 'node:fs'
import { ApolloServer } from '@apollo/server'
import { startStandaloneServer } from '@apollo/server/standalone'
import { ALBUMS, exitOnSignal } from './shared.js'

const typeDefs = readFileSync(new URL('../../src/services/albums/schema.graphql', import.meta.url), 'utf8')
const resolvers = {
  Query: {
    albums: (_: unknown, args: { titleFilter?: string | null }) =>
      args.titleFilter == null ? ALBUMS : ALBUMS.filter((a) => a.title.includes(args.titleFilter as string))
  }
}
const server = new ApolloServer({ typeDefs, resolvers, csrfPrevention: false })
const { url } = await startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } })
exitOnSignal(() => server.stop())
process.stdout.write(`LISTENING ${new URL(url).port}\n`)
