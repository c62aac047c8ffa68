import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { makeConfig } from '../../src/options.js'
import { explainListenError } from '../../src/cli/listen-errors.js'
import { describeStore, startupBlock, startupSummary, withoutPassword } from '../../src/cli/startup.js'
import { directoryLinks } from '../../src/services/index.js'

describe('the store as start-up reports it', () => {
  it('hides a PostgreSQL password, in the user part or as a parameter', () => {
    expect(withoutPassword('postgres://rqs:s3cret@db.example:5432/rqs')).toBe('postgres://rqs:***@db.example:5432/rqs')
    expect(withoutPassword('postgresql://rqs@db/rqs?password=s3cret&sslmode=require')).toBe('postgresql://rqs@db/rqs?password=***&sslmode=require')
    expect(withoutPassword('postgres://postgres@127.0.0.1:5432/rqs')).toBe('postgres://postgres@127.0.0.1:5432/rqs')
  })

  it('names the kind and where the records are', () => {
    const base = { poolSize: 10, startupWaitMs: 0, changesRetentionMs: 86_400_000 }
    expect(describeStore({ ...base, kind: 'memory', path: '', url: '' })).toEqual({ kind: 'memory' })
    expect(describeStore({ ...base, kind: 'sqlite', path: 'data/rqs.db', url: '' })).toEqual({ kind: 'sqlite', location: resolve('data/rqs.db') })
    expect(describeStore({ ...base, kind: 'postgres', path: '', url: 'postgres://u:pw@h/db' })).toEqual({ kind: 'postgres', location: 'postgres://u:***@h/db' })
  })
})

describe('the start-up block', () => {
  const origin = 'http://127.0.0.1:8080'

  it('lists the store, the services and the pages, each with its URL', () => {
    const config = makeConfig({ store: { kind: 'postgres', url: 'postgres://rqs:pw@db:5432/rqs' }, albums: { base: '/music' } })
    const block = startupBlock(startupSummary('1.2.3', [origin, 'http://10.0.0.5:8080'], config.store, directoryLinks(config)))
    expect(block).toBe([
      'rqs 1.2.3 is listening on http://127.0.0.1:8080 (also http://10.0.0.5:8080)',
      '',
      '  Store     postgres postgres://rqs:***@db:5432/rqs',
      '  Services  students      http://127.0.0.1:8080/students',
      '            addresses     http://127.0.0.1:8080/addresses',
      '            albums        http://127.0.0.1:8080/music/graphql',
      '            events        http://127.0.0.1:8080/events',
      '  Open      landing page  http://127.0.0.1:8080/',
      '            web app       http://127.0.0.1:8080/app/',
      '            GraphiQL      http://127.0.0.1:8080/music/graphiql',
      '            API docs      http://127.0.0.1:8080/docs/api',
      '            health        http://127.0.0.1:8080/healthz',
      '',
      'Press Ctrl+C to stop.',
      ''
    ].join('\n'))
  })

  it('shows a service it does not know by its relation name, and leaves out what is turned off', () => {
    const config = makeConfig({ albums: { enabled: false } })
    const links = [...directoryLinks(config), { rel: 'events', href: '/events', title: 'Change events' }]
    const block = startupBlock(startupSummary('1.2.3', [origin], config.store, links))
    expect(block).toMatch(/^ {12}events +http:\/\/127\.0\.0\.1:8080\/events$/m)
    expect(block).not.toContain('graphql')
    expect(block).not.toContain('GraphiQL')
  })
})

describe('listen errors in words', () => {
  it.each([
    ['ENOTFOUND', 'cannot listen on "db.local": no such host'],
    ['EAI_AGAIN', 'cannot listen on "db.local": the name could not be looked up now'],
    ['EADDRNOTAVAIL', 'cannot listen on db.local: not an address of this machine'],
    ['EADDRINUSE', 'cannot listen on db.local port 80: the port is in use'],
    ['EACCES', 'cannot listen on db.local port 80: permission denied (ports below 1024 need privileges; --port / PORT)']
  ])('%s', (code, message) => {
    expect(explainListenError(Object.assign(new Error('x'), { code }), 'db.local', 80)).toContain(message)
  })

  it('leaves other errors to be reported as they are', () => {
    expect(explainListenError(new Error('albums file is broken'), 'localhost', 80)).toBeUndefined()
  })
})
