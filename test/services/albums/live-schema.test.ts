import { GraphQLNonNull, GraphQLString } from 'graphql'
import { describe, expect, it } from 'vitest'
import { makeConfig } from '../../../src/options.js'
import type { CollectionParts } from '../../../src/graphql/schema.js'
import { DEFAULT_ALBUMS } from '../../../src/services/albums/albums.js'
import { LiveSchema } from '../../../src/services/albums/live-schema.js'

/** A collection's root fields as src/graphql makes them, reduced to one query field. */
function partsOf (names: readonly string[]): () => Generator<CollectionParts, CollectionParts> {
  return function * () {
    const all: CollectionParts = { query: {}, mutation: {}, subscription: {} }
    for (const name of names) {
      const own: CollectionParts = { query: { [name]: { type: new GraphQLNonNull(GraphQLString), resolve: () => name } }, mutation: {}, subscription: {} }
      Object.assign(all.query, own.query)
      yield own
    }
    return all
  }
}

describe('the live schema, built in steps', () => {
  const config = makeConfig({}).albums

  it('is built a step per turn: other work runs between the steps, and the schema is whole and valid', async () => {
    const live = new LiveSchema(DEFAULT_ALBUMS, config, '/graphql/stream', partsOf(['one', 'two', 'three']))
    let turns = 0
    const counting = setInterval(() => { turns++ }, 0)
    await live.ready()
    clearInterval(counting)
    expect(turns).toBeGreaterThan(0)
    expect(Object.keys(live.state.schema.getQueryType()?.getFields() ?? {})).toEqual(['albums', 'one', 'two', 'three'])
    // Printed when asked for.
    expect(live.state.sdl).toContain('three: String!')
  })

  it('a change of the collections while the first schema is built builds it again from them', async () => {
    let names = ['one']
    const live = new LiveSchema(DEFAULT_ALBUMS, config, '/graphql/stream', () => partsOf(names)())
    const ready = live.ready()
    names = ['one', 'two']
    live.changed()
    await ready
    expect(Object.keys(live.state.schema.getQueryType()?.getFields() ?? {})).toEqual(['albums', 'one', 'two'])
  })

  it('refuses a collection whose types graphql-js would refuse, before it is served', async () => {
    const live = new LiveSchema(DEFAULT_ALBUMS, config, '/graphql/stream', function * () {
      const own: CollectionParts = { query: { 'bad name': { type: GraphQLString } }, mutation: {}, subscription: {} }
      yield own
      return own
    })
    await expect(live.ready()).rejects.toThrow(/Names must only contain/)
  })
})
