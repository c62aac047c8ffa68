import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { makeConfig } from '../../../src/options.js'
import { buildServer } from '../../../src/server.js'
import { runMain } from '../../helpers/cli.js'
import { startServer } from '../../helpers/server.js'
import { graphql } from './helpers.js'

/** --albums-file: replaces the three albums; checked at start-up, not at the first query. */
describe('albums file', () => {
  let dir: string
  beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'rqs-albums-')) })
  afterAll(async () => { await rm(dir, { recursive: true, force: true }) })

  async function file (name: string, content: string): Promise<string> {
    const path = join(dir, name)
    await writeFile(path, content)
    return path
  }

  it('serves the albums of the file, in its order, missing fields as null', async () => {
    const albumsFile = await file('ok.json', JSON.stringify([
      { title: 'Blue', artist: 'Joni Mitchell', recordNo: 7 },
      { title: 'Blue Train', artist: null },
      { title: 'Kind of Blue', artist: 'Miles Davis', recordNo: -1 },
      { artist: 'Nobody', recordNo: 1 }
    ]))
    const server = await startServer({ albums: { albumsFile } })
    try {
      const all = await graphql(server.origin, '{ albums { title artist recordNo } }')
      expect(all.body).toEqual({
        data: {
          albums: [
            { title: 'Blue', artist: 'Joni Mitchell', recordNo: 7 },
            { title: 'Blue Train', artist: null, recordNo: null },
            { title: 'Kind of Blue', artist: 'Miles Davis', recordNo: -1 },
            { title: null, artist: 'Nobody', recordNo: 1 }
          ]
        }
      })
      // An album without a title matches no filter, not even the empty string.
      const filtered = await graphql(server.origin, '{ albums(titleFilter: "Blue") { title } }')
      expect(filtered.body.data.albums.map((a: { title: string }) => a.title)).toEqual(['Blue', 'Blue Train', 'Kind of Blue'])
      const empty = await graphql(server.origin, '{ albums(titleFilter: "") { artist } }')
      expect(empty.body.data.albums).toHaveLength(3)
      const none = await graphql(server.origin, '{ albums(titleFilter: "blue") { title } }')
      expect(none.body.data.albums).toEqual([])
    } finally {
      await server.close()
    }
  })

  it('an empty list is allowed', async () => {
    const server = await startServer({ albums: { albumsFile: await file('empty.json', '[]') } })
    try {
      expect((await graphql(server.origin, '{ albums { title } }')).body).toEqual({ data: { albums: [] } })
    } finally {
      await server.close()
    }
  })

  it.each([
    ['missing.json', undefined, /cannot be read: ENOENT/],
    ['bad.json', '[{"title": "x",]', /is not valid JSON/],
    ['object.json', '{"albums": []}', /must be a JSON array of \{title, artist, recordNo\}: the top level must be array/],
    ['number-title.json', '[{"title": 5}]', /\/0\/title must be string/],
    ['float.json', '[{"title": "x", "recordNo": 1.5}]', /\/0\/recordNo must be integer/],
    ['too-big.json', '[{"title": "x", "recordNo": 2147483648}]', /\/0\/recordNo must be <= 2147483647/],
    ['typo.json', '[{"title": "x"}, {"titel": "y"}]', /\/1 has an unknown field "titel"/],
    ['proto.json', '[{"title": "x", "__proto__": {"polluted": true}}]', /unknown field "__proto__"/]
  ])('%s stops start-up with a clear error', async (name, content, message) => {
    const albumsFile = content === undefined ? join(dir, name) : await file(name, content)
    await expect(buildServer(makeConfig({ logLevel: 'silent', albums: { albumsFile } }))).rejects.toThrow(message)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('the CLI prints the error and exits non-zero without listening', async () => {
    const albumsFile = await file('cli-bad.json', '[{"title": "x", "year": 1971}]')
    const { code, stderr } = await runMain(['serve', '--port', '0', '--albums-file', albumsFile])
    expect(code).toBe(1)
    expect(stderr).toContain(`rqs: could not start: albums file ${albumsFile} must be a JSON array of {title, artist, recordNo}: /0 has an unknown field "year"`)
  })
})
