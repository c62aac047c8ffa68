import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { commandHelp } from '../../src/cli/help.js'
import { serveCommand } from '../../src/cli/serve.js'
import { optionGroup } from '../../src/config.js'
import { option } from '../../src/config/option.js'
import { lineChecker, type ServedCollection } from '../../src/data/collection.js'
import type { QueryableStore } from '../../src/domain/index.js'
import { AppError } from '../../src/http/errors/index.js'
import { defaultConfig, OPTIONS, resolveConfig, serverOptionsWith } from '../../src/options.js'
import { buildServer } from '../../src/server.js'
import type { ServiceDescriptor } from '../../src/services/types.js'
import { NOTE_ERRORS } from '../fixtures/notes-service.js'
import { request } from '../helpers/server.js'

/*
 * A service that exists only in this file: everything it adds to the server
 * (an option, an error code with its texts, a record collection) comes with
 * its descriptor, and no central file names it.
 */

const notesOptions = optionGroup('notes', Type.Object({
  greeting: option(Type.String(), {
    default: 'hello', flag: 'notes-greeting', value: 'text', env: 'RQS_NOTES_GREETING', help: 'what GET /notes/greeting answers (default hello)'
  })
}))

interface Note { id: number, text: string }

/** The notes' own store: seed files are imported into it. */
class NoteStore implements QueryableStore<Note, string> {
  readonly notes: Note[] = []
  async query (): Promise<Note[]> { return [...this.notes] }
  async count (): Promise<number> { return this.notes.length }
  async * batches (): AsyncIterable<readonly Note[]> { yield [...this.notes] }
  async importAll (source: AsyncIterable<readonly Note[]>): Promise<number> {
    const read: Note[] = []
    for await (const batch of source) read.push(...batch)
    this.notes.push(...read)
    return read.length
  }
}

const NoteLine = Type.Object({ id: Type.Integer({ minimum: 1 }), text: Type.String() }, { additionalProperties: false })
const checkNote = lineChecker(NoteLine)

function notesCollection (store: NoteStore): ServedCollection<Note> {
  return {
    name: 'notes',
    schema: NoteLine,
    store: () => store,
    fields: Object.keys(NoteLine.properties),
    line: (note) => `${JSON.stringify(note)}\n`,
    id: (note) => note.id,
    check: (value) => {
      const result = checkNote(value)
      return 'reason' in result ? result : { record: value as Note }
    },
    model: { fields: {}, maxLimit: 100 }
  }
}

function notesService (store: NoteStore): ServiceDescriptor<typeof notesOptions> {
  return {
    name: 'notes',
    options: notesOptions,
    errors: NOTE_ERRORS,
    collections: [notesCollection(store)],
    versions: [],
    enabled: () => true,
    links: () => [{ rel: 'notes', href: '/notes', title: 'Notes (a test service)' }],
    tags: [],
    paths: () => [{ path: '/notes' }],
    register: async (app, { config }) => {
      await app.register(async (notes: FastifyInstance) => {
        // Its own section of the configuration, typed by its option group.
        notes.get('/greeting', async () => ({ greeting: config.notes.greeting }))
        notes.get('/missing', async () => { throw new AppError('NOTE_NOT_FOUND', 'No note has the id 7') })
        // A code of a service this server does not run is a bug of the service, not the client's doing.
        notes.get('/student', async () => { throw new AppError('STUDENT_NOT_FOUND', 'No student has the id 7') })
      }, { prefix: '/notes' })
    }
  }
}

describe('a service brings its option group', () => {
  const notes = notesService(new NoteStore())

  it('its option is listed for rqs serve --help and the parser, after the built-in services\' options', () => {
    const options = serverOptionsWith([notes])
    const flags = options.map((o) => o.flag)
    expect(options.find((o) => o.flag === 'notes-greeting')).toMatchObject({ env: 'RQS_NOTES_GREETING', takesValue: true, value: 'text' })
    expect(flags.indexOf('notes-greeting')).toBe(flags.indexOf('webhook-lease') + 1) // the webhooks' last option, the last built-in service's
    expect(options.filter((o) => o.flag !== 'notes-greeting')).toEqual(OPTIONS)
    const help = commandHelp({ ...serveCommand, options })
    expect(help).toMatch(/--notes-greeting <text> +what GET \/notes\/greeting answers \(default hello\)\s+\[env RQS_NOTES_GREETING\]/)
    // Only a server given the service knows its option.
    expect(OPTIONS.map((o) => o.flag)).not.toContain('notes-greeting')
  })

  it('resolveConfig reads its section with the usual precedence', () => {
    expect(resolveConfig({}, {}, undefined, [notes]).notes).toEqual({ greeting: 'hello' })
    expect(resolveConfig({}, { RQS_NOTES_GREETING: 'moin' }, undefined, [notes]).notes.greeting).toBe('moin')
    expect(resolveConfig({ 'notes-greeting': 'servus' }, { RQS_NOTES_GREETING: 'moin' }, undefined, [notes]).notes.greeting).toBe('servus')
    expect(() => resolveConfig({ 'notes-greeting': '' }, {}, undefined, [notes])).toThrow('--notes-greeting must not be empty')
    expect(defaultConfig()).not.toHaveProperty('notes')
  })
})

describe('a service brings its error codes and its record collection', () => {
  const store = new NoteStore()
  const notes = notesService(store)
  let tmp: string
  let app: FastifyInstance
  let plain: FastifyInstance
  let origin: string
  let plainOrigin: string

  const listen = async (server: FastifyInstance): Promise<string> => {
    await server.listen({ port: 0, host: '127.0.0.1' })
    const address = server.server.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    return `http://127.0.0.1:${address.port}`
  }

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'rqs-notes-'))
    const seed = join(tmp, 'notes.ndjson')
    writeFileSync(seed, '{"id":1,"text":"first"}\n{"id":2,"text":"second"}\n')
    const flags = { 'log-level': 'silent', 'notes-greeting': 'moin', seed, 'no-students': true }
    app = await buildServer(resolveConfig(flags, {}, undefined, [notes]), { services: [notes] })
    origin = await listen(app)
    // A second server in the same process, without the service: nothing of it leaks in.
    plain = await buildServer(resolveConfig({ 'log-level': 'silent' }, {}))
    plainOrigin = await listen(plain)
  })
  afterAll(async () => {
    await app.close()
    await plain.close()
    rmSync(tmp, { recursive: true, force: true })
  })

  it('its routes read its section of the configuration', async () => {
    expect((await request(`${origin}/notes/greeting`)).body).toEqual({ greeting: 'moin' })
  })

  it('its code is in the server\'s catalogue, in English and German', async () => {
    const list = await request(`${origin}/errors`)
    expect(list.body.errors.map((e: any) => e.code)).toContain('NOTE_NOT_FOUND')
    const en = await request(`${origin}/errors/NOTE_NOT_FOUND`)
    expect(en.body).toEqual({ code: 'NOTE_NOT_FOUND', status: 404, title: 'Note not found', message: 'The note does not exist.', description: 'No note has the id in the path.' })
    const de = await request(`${origin}/errors/NOTE_NOT_FOUND`, { headers: { 'accept-language': 'de' } })
    expect(de.body).toMatchObject({ title: 'Notiz nicht gefunden', message: 'Die Notiz existiert nicht.' })
  })

  it('its routes answer with it as a problem, translated', async () => {
    const res = await request(`${origin}/notes/missing`, { headers: { 'accept-language': 'de' } })
    expect(res.status).toBe(404)
    expect(res.body).toMatchObject({ type: '/errors/NOTE_NOT_FOUND', title: 'Notiz nicht gefunden', detail: 'No note has the id 7' })
    expect(res.body.errors[0]).toMatchObject({ error: 'NOTE_NOT_FOUND', message: 'Die Notiz existiert nicht.' })
  })

  it('the API description lists its code among the problems\' codes', async () => {
    const doc = (await request(`${origin}/openapi.json`)).body
    const codes = doc.components.schemas.ErrorEntry.properties.error.anyOf.map((c: any) => c.const)
    expect(codes).toContain('NOTE_NOT_FOUND')
    // Not the student service's: it is switched off here.
    expect(codes).not.toContain('STUDENT_NOT_FOUND')
  })

  it('a server without the service does not know its code', async () => {
    expect((await request(`${plainOrigin}/errors`)).body.errors.map((e: any) => e.code)).not.toContain('NOTE_NOT_FOUND')
    const res = await request(`${plainOrigin}/errors/NOTE_NOT_FOUND`)
    expect(res.status).toBe(404)
    expect(res.body.errors[0].error).toBe('UNKNOWN_ERROR_CODE')
  })

  it('a code of a service the server does not run is a 500 INTERNAL, not a broken answer', async () => {
    const res = await request(`${origin}/notes/student`)
    expect(res.status).toBe(500)
    expect(res.body.errors[0].error).toBe('INTERNAL')
    expect((await request(`${origin}/errors/STUDENT_NOT_FOUND`)).status).toBe(404)
  })

  it('a seed file of its records is recognised by the fields the collection declares and loaded into its store', () => {
    expect(store.notes).toEqual([{ id: 1, text: 'first' }, { id: 2, text: 'second' }])
  })

  it('a seed file whose first line fits no collection better than another stops the start, naming what each declares', async () => {
    const bad = join(tmp, 'ids.ndjson')
    writeFileSync(bad, '{"id":3}\n')
    await expect(buildServer(resolveConfig({ 'log-level': 'silent', seed: bad }, {}, undefined, [notes]), { services: [notes] }))
      .rejects.toThrow('the first line is no record of students (id, firstName, lastName, age) or addresses (id, name, city, postalCode) or notes (id, text)')
  })

  it('the change feed carries its collection: ?services= names it beside the others', async () => {
    const res = await request(`${origin}/events?services=nope`, { headers: { accept: 'text/event-stream' } })
    expect(res.status).toBe(400)
    expect(res.body.errors[0].error).toBe('FEED_SERVICE_UNKNOWN')
    expect(res.body.detail).toContain('use addresses, notes')
    const plainFeed = await request(`${plainOrigin}/events?services=notes`, { headers: { accept: 'text/event-stream' } })
    expect(plainFeed.body.detail).toContain('use students, addresses')
  })
})
