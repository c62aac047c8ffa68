import { GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString, type GraphQLFieldConfig, type GraphQLInputObjectType, type GraphQLScalarType } from 'graphql'
import { finishGroups, MAX_GROUPS, type AggregateGroup, type AggregateQuery, type RecordStore } from '../domain/index.js'
import { parseAggregateQuery, QueryRefused, type CollectionModel } from '../records/index.js'
import { readListArgs, type FilterArg } from './lists.js'
import type { CollectionNames } from './names.js'
import { SafeInt } from './scalars.js'

/**
 * `<collection>Aggregate(filter:, groupBy:, sum:, avg:, min:, max:)`: REST's
 * GET /{collection}/aggregate (issue 31, item 6) in GraphQL, read by the same
 * parser and computed by the same store call, so both answer alike. Each
 * group's key and values are JSON objects by field, as REST writes them.
 */
export interface AggregateArgs {
  filter?: FilterArg | null
  groupBy?: string[] | null
  sum?: string[] | null
  avg?: string[] | null
  min?: string[] | null
  max?: string[] | null
}

/** The schema's `coded`: runs a resolver, giving what it throws REST's code and words. */
type Coded<C> = (resolve: (args: AggregateArgs, context: C) => Promise<unknown>) => GraphQLFieldConfig<unknown, C, AggregateArgs>['resolve']

/** `restrict` narrows the query to what the caller may list (the collection's rules), so groups count only those records. */
export function aggregateField<C> (model: CollectionModel, store: RecordStore, names: CollectionNames, filter: GraphQLInputObjectType, json: GraphQLScalarType, coded: Coded<C>, restrict: (query: AggregateQuery, context: C) => AggregateQuery = (q) => q): GraphQLFieldConfig<unknown, C, AggregateArgs> {
  const Group = new GraphQLObjectType<AggregateGroup>({
    name: `${names.type}AggregateGroup`,
    description: 'One group: its key, its number of records, and per field asked for its sum, average, least and greatest value (JSON objects by field).',
    fields: {
      key: { type: new GraphQLNonNull(json), description: 'The groupBy fields\' values (null: unset); {} without groupBy.' },
      count: { type: new GraphQLNonNull(SafeInt) },
      sum: { type: json },
      avg: { type: json },
      min: { type: json },
      max: { type: json }
    }
  })
  const fieldNames = new GraphQLList(new GraphQLNonNull(GraphQLString))
  return {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(Group))),
    description: `Groups of the records of ${names.list} the filter selects, in key order (an unset key first): counts, sums and averages of number fields, least and greatest values; at most ${MAX_GROUPS} groups (more is TOO_MANY_GROUPS). As REST's GET …/aggregate.`,
    args: { filter: { type: filter }, groupBy: { type: fieldNames }, sum: { type: fieldNames }, avg: { type: fieldNames }, min: { type: fieldNames }, max: { type: fieldNames } },
    resolve: coded(async (args, context) => {
      const list = (value?: string[] | null): string | undefined => value === undefined || value === null ? undefined : value.map((v) => v.replace(/\\/g, '\\\\').replace(/,/g, '\\,')).join(',')
      const query: Record<string, unknown> = { count: true }
      for (const use of ['groupBy', 'sum', 'avg', 'min', 'max'] as const) {
        const value = list(args[use])
        if (value !== undefined) query[use] = value
      }
      const request = parseAggregateQuery(model, query)
      const { filter: selected } = readListArgs(model, { filter: args.filter ?? null })
      const asked = restrict({ ...request.query, filter: selected }, context)
      const rows = await store.aggregate(asked)
      if (rows.length > MAX_GROUPS) throw new QueryRefused('TOO_MANY_GROUPS', `More than ${MAX_GROUPS} groups: filter the records further or group by fewer fields`)
      return finishGroups(asked, request.ask, rows)
    })
  }
}
