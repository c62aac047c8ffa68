import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RunningServer } from '../../helpers/server.js'
import { ALL_ALBUMS, graphql, SPEC_ONLY } from './helpers.js'

/** Spec "Album query service (GraphQL)": the query's semantics, over a real server. */
describe('albums query', () => {
  let server: RunningServer
  beforeAll(async () => { server = await startServer(SPEC_ONLY) })
  afterAll(async () => { await server.close() })

  async function albums (query: string, variables?: Record<string, unknown>): Promise<unknown> {
    const res = await graphql(server.origin, query, variables)
    expect(res.status).toBe(200)
    expect(res.body.errors).toBeUndefined()
    return res.body
  }

  it('lists the three albums in their fixed order', async () => {
    expect(await albums('{ albums { title artist recordNo } }')).toEqual({ data: { albums: ALL_ALBUMS } })
  })

  it('answers exactly { data: { albums: [...] } } with nothing else (rule 3)', async () => {
    const res = await graphql(server.origin, '{ albums { title } }')
    expect(Object.keys(res.body)).toEqual(['data'])
    expect(res.text).toBe('{"data":{"albums":[{"title":"Rumours"},{"title":"What\'s Going On"},{"title":"Pet Sounds"}]}}')
  })

  it.each([
    'title', 'artist', 'recordNo', 'title artist', 'title recordNo', 'artist recordNo', 'title artist recordNo', 'recordNo artist title'
  ])('returns only the selected fields, in selection order: %s', async (selection) => {
    const fields = selection.split(' ')
    const body = await albums(`{ albums { ${fields.join(' ')} } }`) as { data: { albums: Array<Record<string, unknown>> } }
    const expected = ALL_ALBUMS.map((album) => Object.fromEntries(fields.map((f) => [f, album[f as keyof typeof album]])))
    expect(body.data.albums).toEqual(expected)
    for (const album of body.data.albums) expect(Object.keys(album)).toEqual(fields)
  })

  describe('titleFilter (rules 1 and 2)', () => {
    it.each([
      ['Sounds', ['Pet Sounds']],
      ['sounds', []], // case-sensitive
      ['Rumours', ['Rumours']],
      ['o', ['Rumours', "What's Going On", 'Pet Sounds']],
      ["'s Go", ["What's Going On"]],
      ['Thriller', []],
      ['', ['Rumours', "What's Going On", 'Pet Sounds']] // every title contains the empty string
    ])('titleFilter %j → %j', async (filter, titles) => {
      const body = await albums(`{ albums(titleFilter: ${JSON.stringify(filter)}) { title } }`)
      expect(body).toEqual({ data: { albums: titles.map((title) => ({ title })) } })
    })

    it('null returns every album', async () => {
      expect(await albums('{ albums(titleFilter: null) { title artist recordNo } }')).toEqual({ data: { albums: ALL_ALBUMS } })
    })

    it('a variable: given, null and absent', async () => {
      const query = 'query ($f: String) { albums(titleFilter: $f) { recordNo } }'
      expect(await albums(query, { f: 'Sounds' })).toEqual({ data: { albums: [{ recordNo: 12 }] } })
      expect(await albums(query, { f: null })).toEqual({ data: { albums: [{ recordNo: 20 }, { recordNo: 10 }, { recordNo: 12 }] } })
      expect(await albums(query, {})).toEqual({ data: { albums: [{ recordNo: 20 }, { recordNo: 10 }, { recordNo: 12 }] } })
      expect(await albums(query)).toEqual({ data: { albums: [{ recordNo: 20 }, { recordNo: 10 }, { recordNo: 12 }] } })
    })

    it('a variable with a default value', async () => {
      expect(await albums('query ($f: String = "Rum") { albums(titleFilter: $f) { artist } }'))
        .toEqual({ data: { albums: [{ artist: 'Fleetwood Mac' }] } })
    })
  })

  it('aliases rename fields and let one query ask twice', async () => {
    const body = await albums('{ all: albums { name: title } pet: albums(titleFilter: "Pet") { by: artist no: recordNo } }')
    expect(body).toEqual({
      data: {
        all: [{ name: 'Rumours' }, { name: "What's Going On" }, { name: 'Pet Sounds' }],
        pet: [{ by: 'The Beach Boys', no: 12 }]
      }
    })
  })

  it('named and inline fragments', async () => {
    const body = await albums(`
      query { albums(titleFilter: "Rum") { ...Names ... on Album { recordNo } } }
      fragment Names on Album { title artist }`)
    expect(body).toEqual({ data: { albums: [{ title: 'Rumours', artist: 'Fleetwood Mac', recordNo: 20 }] } })
  })

  it('@include and @skip directives', async () => {
    const query = 'query ($withArtist: Boolean!) { albums(titleFilter: "Pet") { title artist @include(if: $withArtist) recordNo @skip(if: true) } }'
    expect(await albums(query, { withArtist: true })).toEqual({ data: { albums: [{ title: 'Pet Sounds', artist: 'The Beach Boys' }] } })
    expect(await albums(query, { withArtist: false })).toEqual({ data: { albums: [{ title: 'Pet Sounds' }] } })
  })

  it('__typename on Query and Album', async () => {
    expect(await albums('{ __typename albums(titleFilter: "Pet") { __typename title } }'))
      .toEqual({ data: { __typename: 'Query', albums: [{ __typename: 'Album', title: 'Pet Sounds' }] } })
  })

  it('picks the operation named by operationName', async () => {
    const res = await graphql(server.origin, 'query A { albums(titleFilter: "Rum") { title } } query B { albums(titleFilter: "Pet") { title } }', undefined, {}, 'B')
    expect(res.body).toEqual({ data: { albums: [{ title: 'Pet Sounds' }] } })
  })

  it('introspection describes the schema of the spec', async () => {
    const body = await albums(`{
      __schema { queryType { name } mutationType { name } }
      album: __type(name: "Album") { fields { name type { name kind } } }
      query: __type(name: "Query") { fields { name args { name type { name kind } } type { kind ofType { name kind } } } }
    }`) as any
    expect(body.data.__schema).toEqual({ queryType: { name: 'Query' }, mutationType: null })
    expect(body.data.album.fields).toEqual([
      { name: 'title', type: { name: 'String', kind: 'SCALAR' } },
      { name: 'artist', type: { name: 'String', kind: 'SCALAR' } },
      { name: 'recordNo', type: { name: 'Int', kind: 'SCALAR' } }
    ])
    expect(body.data.query.fields).toEqual([{
      name: 'albums',
      args: [{ name: 'titleFilter', type: { name: 'String', kind: 'SCALAR' } }],
      type: { kind: 'LIST', ofType: { name: 'Album', kind: 'OBJECT' } } // [Album]: list and items nullable
    }])
  })

  describe('invalid queries answer an errors array with a code and no data', () => {
    it.each([
      ['an unknown field', '{ albums { title year } }', /Cannot query field "year" on type "Album"/, 'GRAPHQL_VALIDATION_FAILED'],
      ['an unknown argument', '{ albums(artist: "Marvin Gaye") { title } }', /Unknown argument "artist"/, 'GRAPHQL_VALIDATION_FAILED'],
      ['a wrong argument type', '{ albums(titleFilter: 12) { title } }', /String cannot represent a non string value/, 'GRAPHQL_VALIDATION_FAILED'],
      ['a missing selection', '{ albums }', /must have a selection of subfields/, 'GRAPHQL_VALIDATION_FAILED'],
      ['an unknown fragment', '{ albums { ...Nope } }', /Unknown fragment "Nope"/, 'GRAPHQL_VALIDATION_FAILED'],
      ['a syntax error', '{ albums { title }', /Syntax Error/, 'GRAPHQL_PARSE_FAILED'],
      ['an empty document', '', /Syntax Error: Unexpected <EOF>/, 'GRAPHQL_PARSE_FAILED']
    ])('%s', async (_what, query, message, code) => {
      const res = await graphql(server.origin, query)
      expect(res.status).toBe(200) // application/json: GraphQL errors travel in a 200 (GraphQL over HTTP)
      expect(res.body.data).toBeUndefined()
      expect(res.body.errors).toHaveLength(1)
      expect(res.body.errors[0].message).toMatch(message)
      expect(res.body.errors[0].extensions).toEqual({ code })
    })

    it('a variable of the wrong type is a BAD_USER_INPUT error', async () => {
      const res = await graphql(server.origin, 'query ($f: String) { albums(titleFilter: $f) { title } }', { f: 42 })
      expect(res.status).toBe(200)
      expect(res.body.data).toBeUndefined()
      expect(res.body.errors[0].message).toMatch(/Variable "\$f" got invalid value 42/)
      expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT')
    })

    it('an unknown operationName is a BAD_REQUEST error naming it', async () => {
      const res = await graphql(server.origin, 'query A { albums { title } }', undefined, {}, 'B')
      expect(res.body).toEqual({ errors: [{ message: 'The document has no operation named "B".', extensions: { code: 'BAD_REQUEST' } }] })
    })

    it('several operations and no operationName is a BAD_REQUEST error', async () => {
      const res = await graphql(server.origin, 'query A { albums { title } } query B { albums { artist } }')
      expect(res.body).toEqual({ errors: [{ message: 'The document has several operations: say which one to run with operationName.', extensions: { code: 'BAD_REQUEST' } }] })
    })

    it('a mutation (the schema has none) is an OPERATION_NOT_SUPPORTED error', async () => {
      const res = await graphql(server.origin, 'mutation { __typename }')
      expect(res.body.data).toBeUndefined()
      expect(res.body.errors[0].extensions.code).toBe('OPERATION_NOT_SUPPORTED')
    })

    it('never an `extensions: null` or other null members', async () => {
      const res = await graphql(server.origin, '{ albums { nope } }')
      expect(res.text).not.toContain('null')
    })
  })
})
