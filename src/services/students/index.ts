import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'
import type { StudentStore } from '../../stores/types.js'
import { mountVersioned, type ServiceMount } from '../../http/versioned-mount.js'
import { studentsV1 } from './v1.js'
import { studentsV2 } from './v2.js'
import type { StudentsServiceOptions } from './options.js'

export interface StudentsServiceConfig {
  store: StudentStore
  assetsDir: string
}

export const STUDENT_REPRESENTATIONS = [studentsV1, studentsV2]

/**
 * The student records service at one prefix: its versioned representations,
 * 404/405/406 in the shape the client asked for, and the static assets
 * (spec rule 1: the assets route is always present).
 */
export function studentsService (mount: ServiceMount, config: StudentsServiceConfig) {
  return async function students (app: FastifyInstance): Promise<void> {
    const serviceOptions: StudentsServiceOptions = { store: config.store }
    await mountVersioned(app, {
      negotiator: mount.negotiator,
      fixedVersion: mount.fixedVersion,
      representations: STUDENT_REPRESENTATIONS,
      methods: [['/assets/*', ['GET', 'HEAD']]],
      serviceOptions,
      deprecations: mount.deprecations,
      successor: mount.successor,
      notAcceptable: mount.notAcceptable,
      expose: mount.expose
    })
    // @fastify/static gives content types, ETag, Last-Modified and ranges, and
    // refuses paths that leave the folder; a missing file falls through to 404.
    await app.register(fastifyStatic, {
      root: config.assetsDir,
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      dotfiles: 'deny',
      wildcard: true
    })
  }
}
