import type pg from 'pg'
import type { Migration } from '../migrations.js'
import { foldAllRows } from './fold-rows.js'
import type { TableLayout } from './layout.js'

/**
 * The PostgreSQL schema, one versioned step at a time. A released step never
 * changes: a later change is a new step. ./migrate.ts applies the missing steps
 * in one transaction that first takes an advisory lock, so instances starting
 * together apply each step exactly once.
 */

export interface PostgresMigration extends Migration {
  /** Runs after `sql`, in the same transaction: work SQL cannot do (folding text in TypeScript) on the collections the store opens. */
  fill?: (client: pg.ClientBase, layouts: readonly TableLayout[]) => Promise<void>
}

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: 'students and addresses',
    sql: `
      CREATE TABLE rqs_students (
        id bigint PRIMARY KEY,
        first_name text NOT NULL,
        last_name text NOT NULL,
        age integer NOT NULL
      );

      -- The number of student records, kept in step with rqs_students by the two
      -- functions below. Its row lock serialises every create and delete, from any
      -- connection of any instance, so the spec's id rule (id = records held now)
      -- is exact without a count(*) per create.
      CREATE TABLE rqs_student_count (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        n bigint NOT NULL
      );
      INSERT INTO rqs_student_count (n) VALUES (0);

      -- One round trip per create, and the counter lock is held only while the
      -- function runs. A record already under the new id is replaced and the
      -- count stays (xmax <> 0 tells an upsert's update from its insert).
      CREATE FUNCTION rqs_create_student (p_first_name text, p_last_name text, p_age integer) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE
        new_id bigint;
        replaced boolean;
      BEGIN
        SELECT n INTO new_id FROM rqs_student_count WHERE singleton FOR UPDATE;
        INSERT INTO rqs_students AS s (id, first_name, last_name, age) VALUES (new_id, p_first_name, p_last_name, p_age)
          ON CONFLICT (id) DO UPDATE SET first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name, age = EXCLUDED.age
          RETURNING s.xmax <> 0 INTO replaced;
        IF NOT replaced THEN
          UPDATE rqs_student_count SET n = n + 1 WHERE singleton;
        END IF;
        RETURN new_id;
      END $$;

      -- Takes the counter lock before the record's, in the same order as a
      -- create, so a delete and a create never deadlock.
      CREATE FUNCTION rqs_delete_student (p_id bigint) RETURNS boolean
      LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM rqs_student_count WHERE singleton FOR UPDATE;
        DELETE FROM rqs_students WHERE id = p_id;
        IF NOT FOUND THEN
          RETURN false;
        END IF;
        UPDATE rqs_student_count SET n = n - 1 WHERE singleton;
        RETURN true;
      END $$;

      CREATE TABLE rqs_addresses (
        id bigint PRIMARY KEY,
        name text NOT NULL,
        city text NOT NULL,
        postal_code text NOT NULL
      );
      CREATE INDEX rqs_addresses_city ON rqs_addresses (city, id);
      CREATE INDEX rqs_addresses_postal_code ON rqs_addresses (postal_code, id);
      CREATE SEQUENCE rqs_address_ids AS bigint START 1;

      -- Generated ids come from the sequence; one that a PUT already holds is
      -- skipped (ON CONFLICT waits for a PUT still in flight on that id).
      CREATE FUNCTION rqs_create_address (p_name text, p_city text, p_postal_code text) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE
        new_id bigint;
      BEGIN
        LOOP
          INSERT INTO rqs_addresses (id, name, city, postal_code)
            VALUES (nextval('rqs_address_ids'), p_name, p_city, p_postal_code)
            ON CONFLICT (id) DO NOTHING
            RETURNING id INTO new_id;
          IF new_id IS NOT NULL THEN
            RETURN new_id;
          END IF;
        END LOOP;
      END $$;
    `
  },
  {
    version: 2,
    name: 'student id sequence and idempotency keys',
    sql: `
      -- One past the highest student id ever issued, kept under both id rules so
      -- that switching to --student-ids sequence never reuses an id. Before this
      -- step only the records tell; the highest held id is the best known.
      ALTER TABLE rqs_student_count ADD COLUMN next_id bigint NOT NULL DEFAULT 0;
      UPDATE rqs_student_count SET next_id = COALESCE((SELECT max(id) + 1 FROM rqs_students), 0);

      -- The spec's rule as in step 1, now also advancing next_id.
      CREATE OR REPLACE FUNCTION rqs_create_student (p_first_name text, p_last_name text, p_age integer) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE
        new_id bigint;
        replaced boolean;
      BEGIN
        SELECT n INTO new_id FROM rqs_student_count WHERE singleton FOR UPDATE;
        INSERT INTO rqs_students AS s (id, first_name, last_name, age) VALUES (new_id, p_first_name, p_last_name, p_age)
          ON CONFLICT (id) DO UPDATE SET first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name, age = EXCLUDED.age
          RETURNING s.xmax <> 0 INTO replaced;
        UPDATE rqs_student_count
          SET n = n + CASE WHEN replaced THEN 0 ELSE 1 END, next_id = GREATEST(next_id, new_id + 1)
          WHERE singleton;
        RETURN new_id;
      END $$;

      -- --student-ids sequence: one past the highest id ever issued, under the
      -- same counter-row lock as the spec's rule. No record can hold that id.
      CREATE FUNCTION rqs_create_student_in_sequence (p_first_name text, p_last_name text, p_age integer) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE
        new_id bigint;
      BEGIN
        SELECT next_id INTO new_id FROM rqs_student_count WHERE singleton FOR UPDATE;
        INSERT INTO rqs_students (id, first_name, last_name, age) VALUES (new_id, p_first_name, p_last_name, p_age);
        UPDATE rqs_student_count SET n = n + 1, next_id = new_id + 1 WHERE singleton;
        RETURN new_id;
      END $$;

      -- The answer of each write sent with an Idempotency-Key, written in the
      -- write's own transaction; status 0 marks a key claimed by a transaction
      -- still in flight (never visible once committed).
      CREATE TABLE rqs_idempotency (
        key text PRIMARY KEY,
        fingerprint text NOT NULL,
        status integer NOT NULL,
        headers jsonb NOT NULL,
        body text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX rqs_idempotency_created_at ON rqs_idempotency (created_at);
    `
  },
  // Issue 13 (querying).
  {
    version: 3,
    name: 'query collation and indexes',
    sql: `
      -- Text sorts and compares by code point, as in SQLite and the memory store,
      -- whatever the database's locale. Only the collation changes: no table rewrite.
      ALTER TABLE rqs_students
        ALTER COLUMN first_name TYPE text COLLATE "C",
        ALTER COLUMN last_name TYPE text COLLATE "C";
      ALTER TABLE rqs_addresses
        ALTER COLUMN name TYPE text COLLATE "C",
        ALTER COLUMN city TYPE text COLLATE "C",
        ALTER COLUMN postal_code TYPE text COLLATE "C";

      -- One index per sortable field, ending in id: sorted pages, equality
      -- filters and keyset positions start in the index.
      CREATE INDEX rqs_students_first_name ON rqs_students (first_name, id);
      CREATE INDEX rqs_students_last_name ON rqs_students (last_name, id);
      CREATE INDEX rqs_students_age ON rqs_students (age, id);
      CREATE INDEX rqs_addresses_name ON rqs_addresses (name, id);
    `
  },
  {
    version: 4,
    name: 'change log',
    sql: `
      -- One row per create, replace and delete of a student or an address, for the
      -- change feed, written by the triggers below inside the write's own transaction.
      -- record: the fields besides id (NULL after a delete).
      CREATE TABLE rqs_changes (
        seq bigint PRIMARY KEY,
        service text NOT NULL,
        kind text NOT NULL,
        record_id bigint NOT NULL,
        record jsonb,
        at timestamptz NOT NULL DEFAULT clock_timestamp()
      );

      -- The last sequence number assigned. Its row lock, held from a change until
      -- the transaction ends, gives the numbers out in commit order and without
      -- gaps (a rolled-back write gives its number back): a reader that has seen
      -- seq n has seen every change before it, on any instance.
      CREATE TABLE rqs_change_head (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        seq bigint NOT NULL
      );
      INSERT INTO rqs_change_head (seq) VALUES (0);

      -- NOTIFY is delivered at commit, and only if the transaction commits; the
      -- payload is a wake-up call, listeners read the table by sequence number.
      CREATE FUNCTION rqs_append_change (p_service text, p_kind text, p_record_id bigint, p_record jsonb) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        next_seq bigint;
      BEGIN
        UPDATE rqs_change_head SET seq = seq + 1 WHERE singleton RETURNING seq INTO next_seq;
        INSERT INTO rqs_changes (seq, service, kind, record_id, record) VALUES (next_seq, p_service, p_kind, p_record_id, p_record);
        PERFORM pg_notify('rqs_changes', next_seq::text);
      END $$;

      CREATE FUNCTION rqs_student_changed () RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM rqs_append_change('students', 'deleted', OLD.id, NULL);
        ELSE
          PERFORM rqs_append_change('students', CASE TG_OP WHEN 'INSERT' THEN 'created' ELSE 'replaced' END, NEW.id,
            jsonb_build_object('firstName', NEW.first_name, 'lastName', NEW.last_name, 'age', NEW.age));
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER rqs_students_changed AFTER INSERT OR UPDATE OR DELETE ON rqs_students
        FOR EACH ROW EXECUTE FUNCTION rqs_student_changed();

      CREATE FUNCTION rqs_address_changed () RETURNS trigger
      LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM rqs_append_change('addresses', 'deleted', OLD.id, NULL);
        ELSE
          PERFORM rqs_append_change('addresses', CASE TG_OP WHEN 'INSERT' THEN 'created' ELSE 'replaced' END, NEW.id,
            jsonb_build_object('name', NEW.name, 'city', NEW.city, 'postalCode', NEW.postal_code));
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER rqs_addresses_changed AFTER INSERT OR UPDATE OR DELETE ON rqs_addresses
        FOR EACH ROW EXECUTE FUNCTION rqs_address_changed();
    `
  },
  // Issue 19: `contains` and the search compare text folded by one rule for every
  // store (src/domain/case-fold.ts), computed in TypeScript: the store writes a
  // folded copy of each text field with the record (the create functions take
  // them as arguments), and this step folds the rows already held (foldAllRows).
  {
    version: 5,
    name: 'folded text for search',
    sql: `
      ALTER TABLE rqs_students
        ADD COLUMN first_name_folded text COLLATE "C" NOT NULL DEFAULT '',
        ADD COLUMN last_name_folded text COLLATE "C" NOT NULL DEFAULT '';
      ALTER TABLE rqs_addresses
        ADD COLUMN name_folded text COLLATE "C" NOT NULL DEFAULT '',
        ADD COLUMN city_folded text COLLATE "C" NOT NULL DEFAULT '',
        ADD COLUMN postal_code_folded text COLLATE "C" NOT NULL DEFAULT '';

      -- A change is a change of the record's own fields: writing its folded copies is none.
      DROP TRIGGER rqs_students_changed ON rqs_students;
      CREATE TRIGGER rqs_students_changed AFTER INSERT OR UPDATE OF first_name, last_name, age OR DELETE ON rqs_students
        FOR EACH ROW EXECUTE FUNCTION rqs_student_changed();
      DROP TRIGGER rqs_addresses_changed ON rqs_addresses;
      CREATE TRIGGER rqs_addresses_changed AFTER INSERT OR UPDATE OF name, city, postal_code OR DELETE ON rqs_addresses
        FOR EACH ROW EXECUTE FUNCTION rqs_address_changed();

      -- The creates of step 2 and 1, now also storing the folded copies. The old
      -- signatures go: an rqs that does not write them must not write at all.
      DROP FUNCTION rqs_create_student (text, text, integer);
      CREATE FUNCTION rqs_create_student (p_first_name text, p_last_name text, p_age integer, p_first_name_folded text, p_last_name_folded text) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE
        new_id bigint;
        replaced boolean;
      BEGIN
        SELECT n INTO new_id FROM rqs_student_count WHERE singleton FOR UPDATE;
        INSERT INTO rqs_students AS s (id, first_name, last_name, age, first_name_folded, last_name_folded)
          VALUES (new_id, p_first_name, p_last_name, p_age, p_first_name_folded, p_last_name_folded)
          ON CONFLICT (id) DO UPDATE SET first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name, age = EXCLUDED.age,
            first_name_folded = EXCLUDED.first_name_folded, last_name_folded = EXCLUDED.last_name_folded
          RETURNING s.xmax <> 0 INTO replaced;
        UPDATE rqs_student_count
          SET n = n + CASE WHEN replaced THEN 0 ELSE 1 END, next_id = GREATEST(next_id, new_id + 1)
          WHERE singleton;
        RETURN new_id;
      END $$;

      DROP FUNCTION rqs_create_student_in_sequence (text, text, integer);
      CREATE FUNCTION rqs_create_student_in_sequence (p_first_name text, p_last_name text, p_age integer, p_first_name_folded text, p_last_name_folded text) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE
        new_id bigint;
      BEGIN
        SELECT next_id INTO new_id FROM rqs_student_count WHERE singleton FOR UPDATE;
        INSERT INTO rqs_students (id, first_name, last_name, age, first_name_folded, last_name_folded)
          VALUES (new_id, p_first_name, p_last_name, p_age, p_first_name_folded, p_last_name_folded);
        UPDATE rqs_student_count SET n = n + 1, next_id = new_id + 1 WHERE singleton;
        RETURN new_id;
      END $$;

      DROP FUNCTION rqs_create_address (text, text, text);
      CREATE FUNCTION rqs_create_address (p_name text, p_city text, p_postal_code text, p_name_folded text, p_city_folded text, p_postal_code_folded text) RETURNS bigint
      LANGUAGE plpgsql AS $$
      DECLARE
        new_id bigint;
      BEGIN
        LOOP
          INSERT INTO rqs_addresses (id, name, city, postal_code, name_folded, city_folded, postal_code_folded)
            VALUES (nextval('rqs_address_ids'), p_name, p_city, p_postal_code, p_name_folded, p_city_folded, p_postal_code_folded)
            ON CONFLICT (id) DO NOTHING
            RETURNING id INTO new_id;
          IF new_id IS NOT NULL THEN
            RETURN new_id;
          END IF;
        END LOOP;
      END $$;
    `,
    fill: foldAllRows
  },
  // Issue 19: rqs import stages a file in a temporary table, then applies it in one
  // short transaction that appends the file's changes itself, in one statement at the
  // end (./import.ts). The row triggers skip that transaction's rows: a change per row
  // would take the change head's row lock, which every write needs, at the first
  // imported row and hold it for the whole apply. A WHEN condition skips them without
  // queueing a trigger event per row.
  {
    version: 6,
    name: 'change log of a bulk import',
    sql: `
      DROP TRIGGER rqs_students_changed ON rqs_students;
      CREATE TRIGGER rqs_students_changed AFTER INSERT OR UPDATE OF first_name, last_name, age OR DELETE ON rqs_students
        FOR EACH ROW WHEN (current_setting('rqs.import', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION rqs_student_changed();
      DROP TRIGGER rqs_addresses_changed ON rqs_addresses;
      CREATE TRIGGER rqs_addresses_changed AFTER INSERT OR UPDATE OF name, city, postal_code OR DELETE ON rqs_addresses
        FOR EACH ROW WHEN (current_setting('rqs.import', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION rqs_address_changed();
    `
  },
  // Issue 21: any declared collection in one generic table. The registry below holds
  // what the database stores of each collection; ./registry.ts creates a new one's
  // table and (re)writes its routines (create/delete functions, change trigger) on
  // open, in this same transaction. The built-ins are registered as they are at
  // step 6 with routines version 0, so that happens to them right after this step.
  // Their step 1–6 functions go: an rqs older than this step must not write here
  // (its creates would miss rqs_ids and fail, rather than break the id rules).
  {
    version: 7,
    name: 'collection registry',
    sql: `
      -- fields: [{name, type, required}] in declaration order; id_type: number
      -- (count and sequence), bigint (int64) or string (uuid); id_sequence: the
      -- SEQUENCE of an int64 collection; routines: the version of its generated functions.
      CREATE TABLE rqs_collections (
        name text PRIMARY KEY,
        table_name text NOT NULL UNIQUE,
        id_type text NOT NULL,
        id_sequence text,
        fields jsonb NOT NULL,
        routines integer NOT NULL
      );
      INSERT INTO rqs_collections (name, table_name, id_type, id_sequence, fields, routines) VALUES
        ('students', 'rqs_students', 'number', NULL,
          '[{"name": "firstName", "type": "string", "required": true}, {"name": "lastName", "type": "string", "required": true}, {"name": "age", "type": "integer", "required": true}]', 0),
        ('addresses', 'rqs_addresses', 'bigint', 'rqs_address_ids',
          '[{"name": "name", "type": "string", "required": true}, {"name": "city", "type": "string", "required": true}, {"name": "postalCode", "type": "string", "required": true}]', 0);

      -- The id state of each count/sequence collection, as rqs_student_count was:
      -- n = records held, next_id = one past the highest id ever issued. Creates and
      -- deletes lock the row, so the count rule is exact across instances.
      CREATE TABLE rqs_ids (
        collection text PRIMARY KEY,
        n bigint NOT NULL,
        next_id bigint NOT NULL
      );
      INSERT INTO rqs_ids (collection, n, next_id) SELECT 'students', n, next_id FROM rqs_student_count;

      DROP TRIGGER rqs_students_changed ON rqs_students;
      DROP FUNCTION rqs_student_changed ();
      DROP TRIGGER rqs_addresses_changed ON rqs_addresses;
      DROP FUNCTION rqs_address_changed ();
      DROP FUNCTION rqs_create_student (text, text, integer, text, text);
      DROP FUNCTION rqs_create_student_in_sequence (text, text, integer, text, text);
      DROP FUNCTION rqs_delete_student (bigint);
      DROP FUNCTION rqs_create_address (text, text, text, text, text, text);
      DROP TABLE rqs_student_count;

      -- Changes of collections with UUID ids: the id in record_key, record_id 0. A
      -- nullable column without a default: added without rewriting the table.
      ALTER TABLE rqs_changes ADD COLUMN record_key text;
      CREATE FUNCTION rqs_append_keyed_change (p_service text, p_kind text, p_record_key text, p_record jsonb) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        next_seq bigint;
      BEGIN
        UPDATE rqs_change_head SET seq = seq + 1 WHERE singleton RETURNING seq INTO next_seq;
        INSERT INTO rqs_changes (seq, service, kind, record_id, record_key, record) VALUES (next_seq, p_service, p_kind, 0, p_record_key, p_record);
        PERFORM pg_notify('rqs_changes', next_seq::text);
      END $$;
    `
  },
  // Issue 20: a write no longer numbers its change. The head's row lock, held from the
  // change to the commit, and the NOTIFY (PostgreSQL serialises the commits of notifying
  // transactions) made every commit wait for the one before. Now a write appends its change
  // to rqs_pending_changes under a key from a SEQUENCE (nextval never waits) and sends
  // nothing; after commit a sequencer (./sequencer.ts, any instance) moves the committed
  // pending changes into rqs_changes, numbered in key order, in a short transaction of its
  // own under the head's row lock, and NOTIFYs. Readers read only numbered changes, so
  // rqs_changes keeps its meaning: seq 1, 2, 3 … without gaps, every numbered change
  // committed. The numbered changes of earlier steps stay as they are.
  {
    version: 8,
    name: 'change log numbered after commit',
    sql: `
      -- A change written but not yet numbered. key: the order the sequencer numbers them
      -- in. Two writes of one record take their keys one after the other (the second waits
      -- for the first's commit on the record's row lock before its trigger runs), so a
      -- record's changes are numbered in the order they committed.
      CREATE SEQUENCE rqs_change_keys AS bigint;
      CREATE TABLE rqs_pending_changes (
        key bigint PRIMARY KEY DEFAULT nextval('rqs_change_keys'),
        service text NOT NULL,
        kind text NOT NULL,
        record_id bigint NOT NULL,
        record_key text,
        record jsonb,
        at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
      -- Every row is deleted within moments of its insert: the sequencer also vacuums the
      -- table (./sequencer.ts), and autovacuum does not wait for a fifth of it to be dead.
      -- No truncation: it would lock out the writes' inserts, only to give the pages back
      -- to a table that needs them again a moment later.
      ALTER TABLE rqs_pending_changes SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 1000, vacuum_truncate = false);

      -- The appends of the triggers generated before (same signatures): a collection keeps its
      -- trigger until an instance declaring it rewrites its routines (./registry.ts).
      CREATE OR REPLACE FUNCTION rqs_append_change (p_service text, p_kind text, p_record_id bigint, p_record jsonb) RETURNS void
      LANGUAGE sql AS $$
        INSERT INTO rqs_pending_changes (service, kind, record_id, record) VALUES (p_service, p_kind, p_record_id, p_record);
      $$;
      CREATE OR REPLACE FUNCTION rqs_append_keyed_change (p_service text, p_kind text, p_record_key text, p_record jsonb) RETURNS void
      LANGUAGE sql AS $$
        INSERT INTO rqs_pending_changes (service, kind, record_id, record_key, record) VALUES (p_service, p_kind, 0, p_record_key, p_record);
      $$;

      -- The sequencer: numbers up to p_most committed pending changes after the head, in
      -- key order, and wakes the listeners; returns how many. Called in a transaction of
      -- its own (autocommit, READ COMMITTED). Instances calling it together queue on the
      -- head's row lock; each statement after the lock takes a new snapshot, so it sees
      -- what the previous holder moved. A change whose writer has not committed yet is not
      -- seen: it is numbered by a later call, after the changes numbered now.
      CREATE FUNCTION rqs_number_changes (p_most integer) RETURNS integer
      LANGUAGE plpgsql AS $$
      DECLARE
        head bigint;
        upto bigint;
        numbered integer;
      BEGIN
        -- Through the key's index (EXISTS would scan the table, dead rows and all).
        PERFORM 1 FROM rqs_pending_changes ORDER BY key LIMIT 1;
        IF NOT FOUND THEN
          RETURN 0;
        END IF;
        SELECT seq INTO head FROM rqs_change_head WHERE singleton FOR UPDATE;
        -- A key range, not "key IN (the first p_most keys)": plpgsql keeps a generic plan made
        -- while the table was nearly empty, and for a semi-join that plan can be a nested loop
        -- over a sequential scan, quadratic once an import leaves tens of thousands pending
        -- (30 000 pending: over 20 s). A range is one index or table scan whatever the plan. Changes
        -- that commit between the two statements with a key in the range are numbered now too.
        SELECT max(key) INTO upto FROM (SELECT key FROM rqs_pending_changes ORDER BY key LIMIT p_most) first_keys;
        IF upto IS NULL THEN
          RETURN 0;
        END IF;
        WITH moved AS (
          DELETE FROM rqs_pending_changes WHERE key <= upto RETURNING *
        )
        INSERT INTO rqs_changes (seq, service, kind, record_id, record_key, record, at)
          SELECT head + row_number() OVER (ORDER BY key), service, kind, record_id, record_key, record, at FROM moved;
        GET DIAGNOSTICS numbered = ROW_COUNT;
        IF numbered > 0 THEN
          UPDATE rqs_change_head SET seq = head + numbered WHERE singleton;
          PERFORM pg_notify('rqs_changes', (head + numbered)::text);
        END IF;
        RETURN numbered;
      END $$;
    `
  },
  // Webhooks (issue 34): the subscriptions (the rest of each as JSON), the dispatchers' one
  // position in the change log (moved by compare-and-set), and the queue of deliveries:
  // an instance claims due ones with FOR UPDATE SKIP LOCKED and leases them until
  // lease_until (ms since the epoch), so each is attempted by one instance at a time.
  {
    version: 9,
    name: 'webhooks',
    sql: `
      CREATE TABLE rqs_webhooks (
        id text PRIMARY KEY,
        enabled boolean NOT NULL,
        data jsonb NOT NULL
      );
      CREATE TABLE rqs_webhook_position (
        singleton boolean PRIMARY KEY CHECK (singleton),
        seq bigint NOT NULL
      );
      CREATE TABLE rqs_webhook_deliveries (
        n bigint GENERATED ALWAYS AS IDENTITY,
        webhook_id text NOT NULL REFERENCES rqs_webhooks (id) ON DELETE CASCADE,
        id text NOT NULL,
        seq bigint NOT NULL,
        event text NOT NULL,
        record_key text NOT NULL,
        body text NOT NULL,
        created_at bigint NOT NULL,
        retry_until bigint NOT NULL,
        state text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        next_at bigint,
        last_attempt_at bigint,
        last_status integer,
        last_error text,
        last_duration_ms integer,
        leased_by text,
        lease_until bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (webhook_id, id)
      );
      CREATE INDEX rqs_webhook_deliveries_due ON rqs_webhook_deliveries (next_at) WHERE state = 'pending';
      CREATE INDEX rqs_webhook_deliveries_key ON rqs_webhook_deliveries (webhook_id, record_key, seq) WHERE state = 'pending';
      CREATE INDEX rqs_webhook_deliveries_recent ON rqs_webhook_deliveries (webhook_id, n);
    `
  },
  // A record's recent changes (the feed's history of one record): a seek, not a scan of the log.
  // Integer ids by record_id; UUIDs (record_id 0) by record_key, a partial index the other rows
  // never enter. The log holds the retention window only, so the build (which holds off the
  // sequencer's inserts while it runs, inside the migration's transaction) is short.
  {
    version: 10,
    name: 'change log by record',
    sql: `
      CREATE INDEX IF NOT EXISTS rqs_changes_record ON rqs_changes (service, record_id, seq);
      CREATE INDEX IF NOT EXISTS rqs_changes_record_key ON rqs_changes (service, record_key, seq) WHERE record_key IS NOT NULL;
    `
  }
]

