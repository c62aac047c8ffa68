import { KINDS, type FieldValue, type Position, type SortKey } from '../domain/index.js'
import type { CollectionModel, FieldParam } from './model.js'

/**
 * Opaque paging cursors: the keyset position of a page's last record.
 * In id order (no sort) a cursor is base64url of the id in decimal, as
 * address cursors always were, so those stay valid. With a sort it is
 * base64url of the JSON array [sort, key values…, id]: a cursor names the
 * sort it belongs to, and one used with another sort is refused.
 */

export function sortText (sort: readonly SortKey[]): string {
  return sort.map((k) => (k.descending ? '-' : '') + k.field).join(',')
}

export function encodeCursor (sort: readonly SortKey[], position: Position): string {
  const text = sort.length === 0
    ? position.id.toString()
    : JSON.stringify([sortText(sort), ...position.keys, position.id], (_key, v: unknown) => typeof v === 'bigint' ? v.toString() : v)
  return Buffer.from(text, 'utf8').toString('base64url')
}

/** The position a cursor stands for, or undefined when it is not one this sort could have issued. */
export function decodeCursor (model: CollectionModel, sort: readonly SortKey[], cursor: string): Position | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8')
  const idParam = model.fields.id as FieldParam
  let position: Position | undefined
  if (sort.length === 0) {
    const id = decodeValue(idParam, text)
    position = id === undefined ? undefined : { keys: [], id: id as number | bigint | string }
  } else {
    position = decodeSorted(model, sort, text)
  }
  // Buffer's decoder skips stray characters; insisting on a round trip rejects them (and any other spelling).
  return position !== undefined && encodeCursor(sort, position) === cursor ? position : undefined
}

function decodeSorted (model: CollectionModel, sort: readonly SortKey[], text: string): Position | undefined {
  let parts: unknown
  try { parts = JSON.parse(text) } catch { return undefined }
  if (!Array.isArray(parts) || parts.length !== sort.length + 2 || parts[0] !== sortText(sort)) return undefined
  const keys: Array<FieldValue | null> = []
  for (let i = 0; i < sort.length; i++) {
    const param = model.fields[(sort[i] as SortKey).field] as FieldParam
    // null: the page ended on a record without this (optional) field.
    const value = parts[i + 1] === null && param.optional === true ? null : decodeValue(param, parts[i + 1])
    if (value === undefined) return undefined
    keys.push(value)
  }
  const id = decodeValue(model.fields.id as FieldParam, parts[sort.length + 1])
  return id === undefined ? undefined : { keys, id: id as number | bigint | string }
}

/** A key value as a cursor carries it, read by its kind: text as a string, an integer as a number or (int64, and the default order) a decimal string. */
function decodeValue (param: FieldParam, value: unknown): FieldValue | undefined {
  return KINDS[param.kind].query.fromCursor(value, param)
}
