import { Type, type TSchema } from '@sinclair/typebox'
import type { RecordStores } from '../../domain/index.js'
import { BACK_RELATION_CAP, CAPPED_MEMBER, expandRecords, MAX_EXPAND_DEPTH, MAX_EXPAND_LENGTH, parseExpand, type Relations } from '../../records/index.js'
import type { Expansion } from '../records/policy.js'
import { collectionStore } from '../records/routes.js'

/**
 * `?expand=` on a declared collection's routes (src/records/expand.ts): the
 * expansion its policy carries when it has relations, and the schemas that
 * let the `expand` member and parameter through.
 */

export function expansionOf (relations: Relations, name: string, stores: RecordStores): Expansion | undefined {
  const own = relations.get(name)
  if (own === undefined || own.size === 0) return undefined
  const storeOf = (collection: string): ReturnType<typeof collectionStore> => collectionStore(stores, collection)
  return {
    relations: [...own.keys()],
    parse: (text) => parseExpand(relations, name, text),
    apply: async (nodes, records) => await expandRecords(nodes, records, storeOf)
  }
}

const EXPAND_MEMBER = {
  type: 'object',
  additionalProperties: true,
  description: `With \`?expand=\`: the records the named relations lead to, by relation name (a reference field: the record, left out when it no longer exists; a back-relation \`<collection>_via_<field>\`: the records naming this one, in id order, at most ${BACK_RELATION_CAP}; \`${CAPPED_MEMBER}\` lists those cut there). A nested expansion sits in the expanded record's own \`expand\`.`
}

/** The record's schema with its `expand` member. */
export function withExpandMember (record: TSchema): TSchema {
  return { ...record, properties: { ...record.properties, expand: EXPAND_MEMBER } }
}

/** A page's schema whose items have the `expand` member. */
export function pageWithExpandMember (page: TSchema): TSchema {
  const items = page.properties.items
  return { ...page, properties: { ...page.properties, items: { ...items, items: withExpandMember(items.items) } } }
}

/** The list's query parameters with `expand` (without `querystring`: `expand` alone, a read by id's). */
export function querystringWithExpand (querystring: TSchema | undefined, relations: readonly string[]): TSchema {
  const expand = Type.String({
    maxLength: MAX_EXPAND_LENGTH,
    description: `Relations to answer with each record, comma-separated (${relations.join(', ')}); \`a.b\` expands inside an expanded record, at most ${MAX_EXPAND_DEPTH} levels. One store query per relation per page.`
  })
  if (querystring === undefined) return Type.Object({ expand: Type.Optional(expand) })
  return { ...querystring, properties: { ...querystring.properties, expand } }
}
