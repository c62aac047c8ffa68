import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifySchema } from 'fastify'
import type { ServiceDescriptor } from '../types.js'
import { studentsOptions } from './config.js'
import { STUDENT_ERRORS } from './errors.js'
import { STUDENTS } from './collection.js'
import { problemShape } from '../../http/openapi/index.js'
import { KeptLists, KeptPages, RecordEtags } from '../../http/rest/index.js'
import { declareRoutes } from '../../http/routes/index.js'
import type { StudentRoutesOptions } from './options.js'
import { ErrorEnvelope } from './schema.js'
import { studentsV1 } from './routes-v1.js'
import { studentsV2 } from './routes-v2.js'
import { collectionStore } from '../records/routes.js'
import { studentsDeclaration, studentStore } from './records.js'

const REPRESENTATIONS = [studentsV1, studentsV2]

/**
 * The student records service: its versioned representations at its base,
 * and the static assets (spec rule 1: the assets route is always present).
 */
export const studentsService: ServiceDescriptor<typeof studentsOptions> = {
  name: 'students',
  options: studentsOptions,
  errors: STUDENT_ERRORS,
  declarations: (config) => [studentsDeclaration(config.students.ids)],
  collections: [STUDENTS],
  versions: REPRESENTATIONS.map((r) => r.version),
  enabled: (config) => config.students.enabled,
  links: (config) => [{ rel: 'students', href: config.students.base, title: 'Student records service (REST)', type: 'application/json' }],
  tags: [
    { name: 'students v1 (envelope)', description: 'The spec\'s student records service: every body in `{isSuccessful, body}`.' },
    { name: 'students v2', description: 'Plain bodies, Location, ETag / If-Match, problem details (`Accept: application/vnd.rqs.v2+json` or /v2/).' }
  ],
  // At the root it shares the paths with everything else (its ids are one segment); its files are its own.
  paths: (config) => [{ path: config.students.base === '/' ? '/assets' : config.students.base, option: 'students-base' }],
  register: async (app, { config, stores }) => {
    await app.mountRest<StudentRoutesOptions>(config.students.base, {
      name: 'students',
      resources: '',
      representations: REPRESENTATIONS,
      options: { store: studentStore(collectionStore(stores, 'students')), records: collectionStore(stores, 'students'), lists: new KeptLists(), pages: new KeptPages(), etags: new RecordEtags() },
      methods: [['/assets/*', ['GET', 'HEAD']]],
      extras: async (scope: FastifyInstance) => {
        // Files for browsers, not records: no token needed (the 405 routes of /assets/* follow in this scope).
        declareRoutes(scope, { access: 'public' })
        // Described in the API document, once per mount (/students, /v1/students, …).
        // (The static files' route, not the 405 route of the same path that follows in this scope.)
        scope.addHook('onRoute', (route) => { if (route.url.endsWith('/assets/*') && [route.method].flat().includes('GET')) route.schema = assetsSchema(scope.prefix) })
        // @fastify/static gives content types, ETag, Last-Modified and ranges, and
        // refuses paths that leave the folder; a missing file falls through to 404.
        await scope.register(fastifyStatic, {
          root: config.students.assetsDir,
          prefix: '/assets/',
          decorateReply: false,
          index: false,
          dotfiles: 'deny',
          wildcard: true
        })
      }
    })
  }
}

const FILE = { schema: { type: 'string', format: 'binary' } }

function assetsSchema (prefix: string): FastifySchema {
  const version = /^\/v(\d+)\//.exec(`${prefix}/`)?.[1]
  return {
    operationId: `getStudentAsset${version === undefined ? '' : `V${version}`}`,
    tags: ['students v1 (envelope)'],
    summary: 'A static file from the assets folder (--assets-dir)',
    'x-rqs': { headers: { 200: ['ETag'], 404: ['Content-Language'] } },
    // A file of the package's public/ (the default --assets-dir).
    params: { type: 'object', properties: { '*': { type: 'string', description: 'The file\'s path in the assets folder.', examples: ['style.css'] } } },
    response: {
      200: { description: 'The file, with its own media type; ranges and conditional requests work.', content: { '*/*': FILE } },
      206: { description: 'Partial Content: the requested Range.', content: { '*/*': FILE } },
      304: { type: 'null', description: 'Not Modified: If-None-Match names the current ETag.' },
      404: {
        description: 'No such file (or a path that leaves the folder), in the error shape of the version Accept asks for.',
        content: { 'application/json': { schema: ErrorEnvelope }, [problemShape.mediaTypes?.[0] ?? '']: { schema: problemShape.schema } }
      }
    }
  }
}
