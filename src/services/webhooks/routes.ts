import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import type { ChangeLog, Delivery, Webhook, WebhookStore } from '../../domain/index.js'
import { AppError, problems } from '../../http/errors/index.js'
import { declareRoutes } from '../../http/routes/index.js'
import type { CollectionModel } from '../../records/index.js'
import type { WebhooksConfig } from './config.js'
import type { Dispatcher } from './dispatcher.js'
import { badPattern } from './events.js'
import { checkHookFilter } from './filters.js'
import { generateSecret } from './signing.js'
import { parseTarget, resolveTarget, TargetRefused } from './targets.js'
import type { ByName } from '../collections/served-now.js'

export const WEBHOOKS_PATH = '/webhooks'

export interface WebhookRoutesOptions {
  store: WebhookStore
  changes: ChangeLog
  dispatcher: Dispatcher
  config: WebhooksConfig
  /** The record collections whose events can be subscribed to now. */
  collections: () => readonly string[]
  /** Each collection's query model: what a webhook's `filter` may name. */
  models: ByName<CollectionModel>
}

const ID = /^wh_[0-9a-f]{16}$/
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https URL the events are POSTed to' })
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50, description: '`<collection>.<kind>` (kind created, replaced or deleted), either part may be `*`; `*` alone: every event' })
const Description = Type.String({ maxLength: 500 })
const Filter = Type.Union([Type.String({ maxLength: 2000 }), Type.Null()], {
  description: 'Only changes of records that match this expression (the lists\' `filter=` language, e.g. `year > 2000`); `events` must name exactly one collection. ' +
    'A create or replace is delivered when the record after it matches; a delete only when `events` lists `<collection>.deleted` itself. Empty or null: no filter.'
})

const Create = Type.Object({ url: Url, events: Events, description: Type.Optional(Description), filter: Type.Optional(Filter) }, { additionalProperties: false })
const Patch = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  description: Type.Optional(Description),
  filter: Type.Optional(Filter),
  enabled: Type.Optional(Type.Boolean({ description: 'true re-enables a webhook the dispatcher disabled; false pauses it (events meanwhile are not delivered)' }))
}, { additionalProperties: false, minProperties: 1 })

const WebhookView = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.String(),
  filter: Type.Union([Type.String(), Type.Null()]),
  enabled: Type.Boolean(),
  disabledReason: Type.Union([Type.String(), Type.Null()], { description: 'Why the dispatcher disabled it (re-enable with PATCH {"enabled": true})' }),
  previousSecretValidUntil: Type.Union([Type.String(), Type.Null()], { description: 'Until when the secret before the last rotation still signs too' }),
  createdAt: Type.String(),
  updatedAt: Type.String()
})
const WithSecret = Type.Intersect([WebhookView, Type.Object({ secret: Type.String({ description: 'The signing secret (whsec_…), shown only now' }) })])
const DeliveryView = Type.Object({
  id: Type.String(),
  event: Type.String(),
  seq: Type.Integer({ description: 'The change\'s sequence number (0 for a ping)' }),
  state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  createdAt: Type.String(),
  lastAttemptAt: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Integer(), Type.Null()], { description: 'The receiver\'s HTTP status at the last attempt; null when none came' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why no answer came (timeout, refused connection, refused address)' }),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()], { description: 'When it is attempted next (pending only)' })
})
const IdParams = Type.Object({ id: Type.String({ maxLength: 40 }) })
const DeliveryParams = Type.Object({ id: Type.String({ maxLength: 40 }), delivery: Type.String({ maxLength: 40 }) })
const DeliveriesQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })) }, { additionalProperties: false })

function view (w: Webhook): Static<typeof WebhookView> {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    description: w.description,
    filter: w.filter,
    enabled: w.enabled,
    disabledReason: w.disabledReason,
    previousSecretValidUntil: w.previousSecret === null || w.previousSecretUntil === null || w.previousSecretUntil.getTime() <= Date.now() ? null : w.previousSecretUntil.toISOString(),
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString()
  }
}

export function deliveryView (d: Pick<Delivery, 'id' | 'event' | 'seq' | 'state' | 'attempts' | 'createdAt' | 'lastAttemptAt' | 'lastStatus' | 'lastError' | 'lastDurationMs' | 'nextAt'>): Static<typeof DeliveryView> {
  return {
    id: d.id,
    event: d.event,
    seq: d.seq,
    state: d.state,
    attempts: d.attempts,
    createdAt: d.createdAt.toISOString(),
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    status: d.lastStatus,
    error: d.lastError,
    durationMs: d.lastDurationMs === null ? null : Math.round(d.lastDurationMs),
    nextAttemptAt: d.state === 'pending' ? d.nextAt?.toISOString() ?? null : null
  }
}

const NOTES = { store: true } as const
/** Every route's access, stated on the route itself (the loopback guard of a server without authentication reads it there). */
const ADMIN = { rqs: { access: 'admin' } } as const

/**
 * The webhooks API (admin access): register, list, change, delete, rotate
 * the secret, list and retry deliveries, ping. Problem details throughout.
 */
export async function webhookRoutes (app: FastifyInstance, opts: WebhookRoutesOptions): Promise<void> {
  const { store, dispatcher, config } = opts
  declareRoutes(app, { service: 'webhooks', dataOnly: true })
  app.setErrorHandler(problems.handleError)
  const allowHosts = new Set(config.allowHosts)

  async function found (id: string): Promise<Webhook> {
    const hook = ID.test(id) ? await store.get(id) : undefined
    if (hook === undefined) throw new AppError('WEBHOOK_NOT_FOUND', `No webhook has the id "${id.slice(0, 40)}"`)
    return hook
  }

  async function checkUrl (text: string): Promise<string> {
    try {
      const url = parseTarget(text)
      await resolveTarget(url, allowHosts)
      return url.href
    } catch (err) {
      if (!(err instanceof TargetRefused)) throw err
      throw new AppError('WEBHOOK_URL_REFUSED', err.message, { errors: [{ code: 'WEBHOOK_URL_REFUSED', detail: err.message, field: 'url' }] })
    }
  }

  function checkEvents (events: readonly string[]): string[] {
    const collections = opts.collections()
    const bad = badPattern(events, collections)
    if (bad !== undefined) {
      const detail = `events: "${bad.slice(0, 60)}" is not <collection>.<kind> of this server's collections (${collections.join(', ')}) with kind created, replaced, deleted or *`
      throw new AppError('WEBHOOK_EVENTS_INVALID', detail, { errors: [{ code: 'WEBHOOK_EVENTS_INVALID', detail, field: 'events' }] })
    }
    return [...new Set(events)]
  }

  const checkFilter = (events: readonly string[], filter: string | null): string | null => checkHookFilter(events, filter, opts.models)

  app.post<{ Body: Static<typeof Create> }>(WEBHOOKS_PATH, {
    config: ADMIN,
    schema: {
      operationId: 'createWebhook', tags: ['webhooks'], summary: 'Register a webhook: every matching change is POSTed to its URL, signed (Standard Webhooks)',
      body: Create,
      response: { 201: WithSecret },
      'x-rqs': { errors: ['WEBHOOK_URL_REFUSED', 'WEBHOOK_EVENTS_INVALID', 'WEBHOOK_FILTER_INVALID'], headers: { 201: ['Location'] }, ...NOTES }
    }
  }, async (request, reply) => {
    const { body } = request
    const events = checkEvents(body.events)
    const filter = checkFilter(events, body.filter ?? null)
    const url = await checkUrl(body.url)
    const now = new Date()
    const hook: Webhook = {
      id: `wh_${randomBytes(8).toString('hex')}`,
      url,
      events,
      description: body.description ?? '',
      filter,
      enabled: true,
      disabledReason: null,
      secret: generateSecret(),
      previousSecret: null,
      previousSecretUntil: null,
      // Changes already in the log happened before it: it gets those after.
      afterSeq: (await opts.changes.window()).latest,
      createdAt: now,
      updatedAt: now
    }
    await store.create(hook)
    dispatcher.hooksChanged()
    return await reply.code(201).header('location', `${WEBHOOKS_PATH}/${hook.id}`).send({ ...view(hook), secret: hook.secret })
  })

  app.get(WEBHOOKS_PATH, {
    config: ADMIN,
    schema: { operationId: 'listWebhooks', tags: ['webhooks'], summary: 'Every webhook (without secrets)', response: { 200: Type.Object({ webhooks: Type.Array(WebhookView) }) }, 'x-rqs': NOTES }
  }, async () => ({ webhooks: (await store.list()).map(view) }))

  app.get<{ Params: Static<typeof IdParams> }>(`${WEBHOOKS_PATH}/:id`, {
    config: ADMIN,
    schema: { operationId: 'getWebhook', tags: ['webhooks'], summary: 'One webhook (without its secret)', params: IdParams, response: { 200: WebhookView }, 'x-rqs': { errors: ['WEBHOOK_NOT_FOUND'], ...NOTES } }
  }, async (request) => view(await found(request.params.id)))

  app.patch<{ Params: Static<typeof IdParams>, Body: Static<typeof Patch> }>(`${WEBHOOKS_PATH}/:id`, {
    config: ADMIN,
    schema: {
      operationId: 'updateWebhook', tags: ['webhooks'], summary: 'Change a webhook\'s URL, events, filter, description, or re-enable it (`{"enabled": true}`)',
      params: IdParams, body: Patch, response: { 200: WebhookView },
      'x-rqs': { errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_URL_REFUSED', 'WEBHOOK_EVENTS_INVALID', 'WEBHOOK_FILTER_INVALID'], ...NOTES }
    }
  }, async (request) => {
    const hook = await found(request.params.id)
    const { body } = request
    const next: Webhook = { ...hook, updatedAt: new Date() }
    if (body.events !== undefined) next.events = checkEvents(body.events)
    // The filter is checked against the events it ends up with (a change of either may break the pair).
    if (body.filter !== undefined || body.events !== undefined) next.filter = checkFilter(next.events, body.filter === undefined ? next.filter : body.filter)
    if (body.url !== undefined) next.url = await checkUrl(body.url)
    if (body.description !== undefined) next.description = body.description
    if (body.enabled !== undefined) {
      next.enabled = body.enabled
      next.disabledReason = null
    }
    if (!await store.update(next)) throw new AppError('WEBHOOK_NOT_FOUND', `No webhook has the id "${hook.id}"`)
    dispatcher.hooksChanged()
    return view(next)
  })

  app.delete<{ Params: Static<typeof IdParams> }>(`${WEBHOOKS_PATH}/:id`, {
    config: ADMIN,
    schema: { operationId: 'deleteWebhook', tags: ['webhooks'], summary: 'Delete a webhook and its pending deliveries', params: IdParams, response: { 204: Type.Null() }, 'x-rqs': { errors: ['WEBHOOK_NOT_FOUND'], ...NOTES } }
  }, async (request, reply) => {
    const id = request.params.id
    if (!ID.test(id) || !await store.delete(id)) throw new AppError('WEBHOOK_NOT_FOUND', `No webhook has the id "${id.slice(0, 40)}"`)
    return await reply.code(204).send()
  })

  app.post<{ Params: Static<typeof IdParams> }>(`${WEBHOOKS_PATH}/:id/rotate-secret`, {
    config: ADMIN,
    schema: {
      operationId: 'rotateWebhookSecret', tags: ['webhooks'],
      summary: 'A new signing secret; the old one keeps signing too (a second signature) for the grace period',
      params: IdParams, response: { 200: WithSecret }, 'x-rqs': { errors: ['WEBHOOK_NOT_FOUND'], ...NOTES }
    }
  }, async (request) => {
    const hook = await found(request.params.id)
    const now = new Date()
    const next: Webhook = { ...hook, secret: generateSecret(), previousSecret: hook.secret, previousSecretUntil: new Date(now.getTime() + config.secretGraceMs), updatedAt: now }
    if (!await store.update(next)) throw new AppError('WEBHOOK_NOT_FOUND', `No webhook has the id "${hook.id}"`)
    return { ...view(next), secret: next.secret }
  })

  app.get<{ Params: Static<typeof IdParams>, Querystring: Static<typeof DeliveriesQuery> }>(`${WEBHOOKS_PATH}/:id/deliveries`, {
    config: ADMIN,
    schema: {
      operationId: 'listWebhookDeliveries', tags: ['webhooks'], summary: 'The webhook\'s deliveries, newest first: event, state, attempts, last status and duration, next try',
      params: IdParams, querystring: DeliveriesQuery, response: { 200: Type.Object({ deliveries: Type.Array(DeliveryView) }) }, 'x-rqs': { errors: ['WEBHOOK_NOT_FOUND'], ...NOTES }
    }
  }, async (request) => {
    const hook = await found(request.params.id)
    return { deliveries: (await store.deliveries(hook.id, request.query.limit ?? 50)).map(deliveryView) }
  })

  app.post<{ Params: Static<typeof DeliveryParams> }>(`${WEBHOOKS_PATH}/:id/deliveries/:delivery/retry`, {
    config: ADMIN,
    schema: {
      operationId: 'retryWebhookDelivery', tags: ['webhooks'], summary: 'Attempt a delivery again now (a failed one gets a new retry period)',
      params: DeliveryParams, response: { 202: Type.Object({ id: Type.String(), state: Type.Literal('pending') }) }, 'x-rqs': { errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_DELIVERY_NOT_FOUND'], ...NOTES }
    }
  }, async (request, reply) => {
    const hook = await found(request.params.id)
    const { delivery } = request.params
    const now = new Date()
    if (!await store.retry(hook.id, delivery, now, new Date(now.getTime() + config.retryPeriodMs))) {
      throw new AppError('WEBHOOK_DELIVERY_NOT_FOUND', `Webhook ${hook.id} has no delivery "${delivery.slice(0, 40)}"`)
    }
    dispatcher.wake()
    return await reply.code(202).send({ id: delivery, state: 'pending' })
  })

  app.post<{ Params: Static<typeof IdParams> }>(`${WEBHOOKS_PATH}/:id/ping`, {
    config: ADMIN,
    schema: {
      operationId: 'pingWebhook', tags: ['webhooks'], summary: 'POST a signed `webhook.ping` event to the webhook now and answer what the receiver did (kept among its deliveries)',
      params: IdParams, response: { 200: DeliveryView }, 'x-rqs': { errors: ['WEBHOOK_NOT_FOUND'], ...NOTES }
    }
  }, async (request) => {
    const hook = await found(request.params.id)
    const sent = await dispatcher.ping(hook)
    return deliveryView({ ...sent, state: sent.delivered ? 'delivered' : 'failed', attempts: 1, lastAttemptAt: sent.at, lastStatus: sent.status, lastError: sent.error, lastDurationMs: sent.durationMs, nextAt: null })
  })
}
