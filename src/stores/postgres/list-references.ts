import type pg from 'pg'
import { CollectionChangedError, type OnDelete } from '../../domain/index.js'
import { identifier, quoted, type FieldLayout, type TableLayout } from './layout.js'

/**
 * Lists of references (a jsonb array of ids) on PostgreSQL, which has no
 * foreign key on array elements: triggers keep them instead, in every
 * write's own transaction and across instances.
 *
 * - On the referring table, BEFORE INSERT OR UPDATE of the list: the ids
 *   it gains are locked FOR KEY SHARE (as a foreign key's check does), then
 *   the first one no record holds is refused. A delete of one of them waits
 *   for this transaction; a delete already done is seen once its lock is
 *   granted (READ COMMITTED re-reads the row). Ids the list held before are
 *   not locked again (a delete of one meets this row in its own trigger,
 *   after this commit), so a `remove`'s UPDATE, which only drops ids, takes
 *   no lock on other targets and two such deletes cannot deadlock.
 * - On the target table, AFTER DELETE (the row lock held, so an insert that
 *   locked it has committed and a fresh statement sees it): `restrict`
 *   refuses while a list names the id, `remove` takes it out of each list
 *   (an UPDATE, which the referring table's change trigger records).
 *
 * Both raise SQLSTATE 23503 with the key's name as the constraint, like a
 * foreign key, so PostgresReferences turns them into the same refusals.
 */

/** A list of references as ./references.ts names it: the name stands for it in the errors raised. */
export interface ListKey {
  name: string
  layout: TableLayout
  field: FieldLayout
  target: TableLayout
  onDelete: OnDelete
}

/** Replaces the list triggers of rqs (named …_lr_…) by those the declarations ask for; refuses lists that name missing records. */
export async function ensureListReferences (client: pg.ClientBase, layouts: ReadonlyArray<{ table: string }>, keys: readonly ListKey[], where: string): Promise<void> {
  for (const layout of layouts) {
    const held = (await client.query<{ name: string }>("SELECT tgname AS name FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname LIKE '%\\_lr\\_%'", [layout.table])).rows
    for (const { name } of held) await client.query(`DROP TRIGGER ${quoted(name)} ON ${layout.table}`)
  }
  for (const key of keys) {
    const list = key.field.column
    const targetId = key.target.idSqlType
    const check = identifier(key.name, 'lr_check')
    await client.query(`CREATE OR REPLACE FUNCTION ${quoted(check)} () RETURNS trigger LANGUAGE plpgsql AS $f$
      DECLARE missing text; held jsonb := '[]';
      BEGIN
        IF NEW.${list} IS NULL OR jsonb_array_length(NEW.${list}) = 0 THEN RETURN NEW; END IF;
        IF TG_OP = 'UPDATE' THEN held := coalesce(OLD.${list}, '[]'); END IF;
        PERFORM 1 FROM ${key.target.table} t WHERE t.id IN (SELECT (e #>> '{}')::${targetId} FROM jsonb_array_elements(NEW.${list}) e WHERE NOT held @> jsonb_build_array(e)) FOR KEY SHARE;
        SELECT x.e #>> '{}' INTO missing FROM jsonb_array_elements(NEW.${list}) WITH ORDINALITY AS x(e, n)
          WHERE NOT held @> jsonb_build_array(x.e) AND NOT EXISTS (SELECT 1 FROM ${key.target.table} t WHERE t.id = (x.e #>> '{}')::${targetId}) ORDER BY x.n LIMIT 1;
        IF missing IS NOT NULL THEN
          RAISE EXCEPTION 'list reference' USING ERRCODE = '23503', CONSTRAINT = '${key.name}', DETAIL = format('Key (${key.field.columnName})=(%s) is not present in table', missing);
        END IF;
        RETURN NEW;
      END $f$`)
    await client.query(`CREATE TRIGGER ${quoted(check)} BEFORE INSERT OR UPDATE OF ${list} ON ${key.layout.table} FOR EACH ROW EXECUTE FUNCTION ${quoted(check)} ()`)
    const onDelete = identifier(key.name, 'lr_del')
    const action = key.onDelete === 'remove'
      ? `UPDATE ${key.layout.table} SET ${list} = (SELECT coalesce(jsonb_agg(x.e ORDER BY x.n), '[]'::jsonb) FROM jsonb_array_elements(${list}) WITH ORDINALITY AS x(e, n) WHERE x.e <> to_jsonb(OLD.id))
          WHERE ${list} @> jsonb_build_array(to_jsonb(OLD.id));`
      : `IF EXISTS (SELECT 1 FROM ${key.layout.table} WHERE ${list} @> jsonb_build_array(to_jsonb(OLD.id))) THEN
          RAISE EXCEPTION 'list reference' USING ERRCODE = '23503', CONSTRAINT = '${key.name}', DETAIL = format('Key (id)=(%s) is still referenced from table', OLD.id);
        END IF;`
    await client.query(`CREATE OR REPLACE FUNCTION ${quoted(onDelete)} () RETURNS trigger LANGUAGE plpgsql AS $f$
      BEGIN
        ${action}
        RETURN OLD;
      END $f$`)
    await client.query(`CREATE TRIGGER ${quoted(onDelete)} AFTER DELETE ON ${key.target.table} FOR EACH ROW EXECUTE FUNCTION ${quoted(onDelete)} ()`)
    // Records held before the list became a reference: each id must name a record.
    const { rows } = await client.query<{ id: string }>(`SELECT x.e #>> '{}' AS id FROM ${key.layout.table} s, jsonb_array_elements(s.${list}) AS x(e)
      WHERE NOT EXISTS (SELECT 1 FROM ${key.target.table} t WHERE t.id = (x.e #>> '{}')::${targetId}) LIMIT 1`)
    if (rows[0] !== undefined) {
      throw new CollectionChangedError(key.layout.declaration.name, [`${key.field.name}: records name ${key.target.declaration.name}/${rows[0].id}, which does not exist; correct them first`], where)
    }
  }
}
