import type { FastifyInstance, RouteHandlerMethod } from 'fastify'
import { finishGroups, KINDS, MAX_GROUP_FIELDS, MAX_GROUPS, type AggregateQuery, type Caller, type CollectionAccess, type RecordStore } from '../../domain/index.js'
import { AppError } from '../../http/errors/index.js'
import { answer, type OperationNotes } from '../../http/openapi/index.js'
import { parseAggregateQuery, type CollectionModel } from '../../records/index.js'
import type { WirePolicy } from './policy.js'
import { andAllowance, guardedAllowance, narrowedFilter, requestCaller } from './access.js'

/**
 * `GET /{collection}/aggregate`: counts, sums, averages, least and greatest
 * values by group over the records the list's filters select (issue 31,
 * item 6). The store computes the groups (SQL stores: one GROUP BY with the
 * list's WHERE); src/domain/aggregate.ts orders and finishes them alike on
 * every store. More than MAX_GROUPS groups is refused (TOO_MANY_GROUPS), never cut short.
 */
const AGGREGATE_VALUES: Record<string, unknown> = {
  count: { type: 'boolean', description: '`true`: each group\'s number of records.' },
  sum: { type: 'string', maxLength: 200, description: 'Integer or number fields to add up, separated by commas (null when no record of the group holds a value; sums of number fields rounded to 12 significant digits).' },
  avg: { type: 'string', maxLength: 200, description: 'Integer or number fields to average over the records that hold a value, separated by commas (rounded to 12 significant digits; null when none holds one).' },
  min: { type: 'string', maxLength: 200, description: 'Fields (text, numbers, date-times) whose least value to give, separated by commas.' },
  max: { type: 'string', maxLength: 200, description: 'Fields (text, numbers, date-times) whose greatest value to give, separated by commas.' }
}

/** The aggregate's own query parameters (beside the list's filters), in the API description. */
export function aggregateQuery (model: CollectionModel): Record<string, unknown> {
  // The example groups by the collection's first plain field, so "Try it out" answers.
  const example = Object.entries(model.fields).find(([name, param]) => !name.includes('.') && KINDS[param.kind].composite === undefined && param.kind !== 'int64')?.[0]
  return {
    groupBy: { type: 'string', maxLength: 200, description: `Fields to group by, separated by commas (at most ${MAX_GROUP_FIELDS}; without it, one group of every selected record with an empty key). Groups come in key order, an unset value first.`, ...(example === undefined ? {} : { examples: [example] }) },
    ...AGGREGATE_VALUES
  }
}

const byField = { type: 'object', additionalProperties: true }
const GROUPS = {
  type: 'object',
  title: 'Aggregate',
  description: 'The groups, in key order.',
  properties: {
    groups: {
      type: 'array',
      items: {
        type: 'object',
        properties: { key: { ...byField, description: 'The groupBy fields\' values (null: unset).' }, count: { type: 'integer' }, sum: byField, avg: byField, min: byField, max: byField },
        required: ['key']
      }
    }
  },
  required: ['groups'],
  examples: [{ groups: [{ key: { year: 1965 }, count: 2, sum: { price: 30 }, avg: { price: 15 } }] }]
}

/** Registers the aggregate route of a collection at `path` (its records' path and `/aggregate`); `querystring`: the list's filters. */
export function aggregateRoute (app: FastifyInstance, policy: WirePolicy, store: RecordStore, path: string, querystring: Record<string, unknown>): void {
  const { tags, operations } = policy
  const notes: OperationNotes = { store: true, errors: ['INVALID_QUERY', 'TOO_MANY_GROUPS'] }
  app.get(path, {
    config: { rqs: { access: 'read' } },
    schema: {
      operationId: `aggregate${operations.list.operationId.replace(/^list/, '')}`,
      tags,
      summary: 'Count, add up, average, least and greatest values by group, over the records the list\'s filters select',
      description: `The list's filters (\`field=value\`, \`field[op]=value\`, \`filter=\`, \`q\`) select the records; \`groupBy\` (up to ${MAX_GROUP_FIELDS} fields) groups them, and \`count\`, \`sum\`, \`avg\`, \`min\`, \`max\` say what each group gives. Computed by the database (GROUP BY). At most ${MAX_GROUPS} groups: more is 400 TOO_MANY_GROUPS (filter more, or group by fewer fields).`,
      querystring,
      'x-rqs': notes,
      response: { 200: answer(GROUPS, 'The groups, in key order (an unset key first).') }
    }
  }, aggregate(policy, store))
}

function aggregate (policy: WirePolicy, store: RecordStore): RouteHandlerMethod {
  const { model } = policy.schemas
  const { access } = store.declaration
  return async function aggregateRecords (request) {
    const { query: asked, ask } = parseAggregateQuery(model, request.query as Record<string, unknown>)
    const query = access === undefined ? asked : visibleAggregate(access, requestCaller(request), asked)
    const rows = await store.aggregate(query)
    if (rows.length > MAX_GROUPS) throw new AppError('TOO_MANY_GROUPS', `More than ${MAX_GROUPS} groups: filter the records further or group by fewer fields`)
    return { groups: finishGroups(query, ask, rows) }
  }
}

/**
 * An aggregate over what the caller may list (docs/rules.md): the list rule
 * ANDed into its filter, and for every guarded field it groups by or
 * measures, only the records whose field the caller may read.
 */
function visibleAggregate (access: CollectionAccess, caller: Caller, query: AggregateQuery): AggregateQuery {
  const filter = narrowedFilter(access, caller, query.filter)
  const named = [...query.groupBy, ...query.sums, ...query.min, ...query.max]
  return { ...query, filter: andAllowance(filter, guardedAllowance(access, caller, named)) }
}
