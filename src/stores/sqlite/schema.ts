import type { Migration } from '../migrations.js'

/**
 * The SQLite schema, one versioned step at a time. A step never changes once
 * released: a later change is a new step. Applied by ./migrate.ts inside one
 * BEGIN IMMEDIATE transaction, so two processes opening the same file at once
 * apply each step exactly once.
 */

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'students and addresses',
    sql: `
      CREATE TABLE rqs_students (
        id INTEGER PRIMARY KEY,
        first_name TEXT NOT NULL,
        last_name TEXT NOT NULL,
        age INTEGER NOT NULL
      );
      -- The number of student records, kept in step with rqs_students in every
      -- write transaction, so a create never counts rows (the spec's id rule).
      CREATE TABLE rqs_student_count (
        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
        n INTEGER NOT NULL
      );
      INSERT INTO rqs_student_count (singleton, n) VALUES (1, 0);

      CREATE TABLE rqs_addresses (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        city TEXT NOT NULL,
        postal_code TEXT NOT NULL
      );
      CREATE INDEX rqs_addresses_city ON rqs_addresses (city, id);
      CREATE INDEX rqs_addresses_postal_code ON rqs_addresses (postal_code, id);
      -- The next generated address id; creates skip ids a PUT already holds.
      CREATE TABLE rqs_address_ids (
        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
        next INTEGER NOT NULL
      );
      INSERT INTO rqs_address_ids (singleton, next) VALUES (1, 1);
    `
  },
  {
    version: 2,
    name: 'student id sequence and idempotency keys',
    sql: `
      -- One past the highest student id ever issued, kept under both id rules so
      -- that switching to --student-ids sequence never reuses an id. Before this
      -- step only the records tell; the highest held id is the best known.
      ALTER TABLE rqs_student_count ADD COLUMN next_id INTEGER NOT NULL DEFAULT 0;
      UPDATE rqs_student_count SET next_id = COALESCE((SELECT MAX(id) + 1 FROM rqs_students), 0);

      -- The answer of each write sent with an Idempotency-Key, written in the
      -- write's own transaction. created_at is in ms since the epoch.
      CREATE TABLE rqs_idempotency (
        key TEXT PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        status INTEGER NOT NULL,
        headers TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX rqs_idempotency_created_at ON rqs_idempotency (created_at);
    `
  },
  // Issue 13 (querying): one index per sortable field, ending in id, for sorted
  // pages, equality filters and keyset positions. Text compares by code point
  // (SQLite's BINARY collation), as in the other stores.
  {
    version: 3,
    name: 'query indexes',
    sql: `
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
      -- change feed. Written by the triggers below, so inside the write's own
      -- transaction: the file's write lock makes seq the commit order, and
      -- AUTOINCREMENT never reuses a number (a rolled-back write takes none).
      -- record: the fields besides id as JSON (NULL after a delete); at: ms since the epoch.
      CREATE TABLE rqs_changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        service TEXT NOT NULL,
        kind TEXT NOT NULL,
        record_id INTEGER NOT NULL,
        record TEXT,
        at INTEGER NOT NULL
      );

      CREATE TRIGGER rqs_students_created AFTER INSERT ON rqs_students BEGIN
        INSERT INTO rqs_changes (service, kind, record_id, record, at) VALUES ('students', 'created', NEW.id,
          json_object('firstName', NEW.first_name, 'lastName', NEW.last_name, 'age', NEW.age), CAST(unixepoch('subsec') * 1000 AS INTEGER));
      END;
      CREATE TRIGGER rqs_students_replaced AFTER UPDATE ON rqs_students BEGIN
        INSERT INTO rqs_changes (service, kind, record_id, record, at) VALUES ('students', 'replaced', NEW.id,
          json_object('firstName', NEW.first_name, 'lastName', NEW.last_name, 'age', NEW.age), CAST(unixepoch('subsec') * 1000 AS INTEGER));
      END;
      CREATE TRIGGER rqs_students_deleted AFTER DELETE ON rqs_students BEGIN
        INSERT INTO rqs_changes (service, kind, record_id, record, at) VALUES ('students', 'deleted', OLD.id, NULL, CAST(unixepoch('subsec') * 1000 AS INTEGER));
      END;

      CREATE TRIGGER rqs_addresses_created AFTER INSERT ON rqs_addresses BEGIN
        INSERT INTO rqs_changes (service, kind, record_id, record, at) VALUES ('addresses', 'created', NEW.id,
          json_object('name', NEW.name, 'city', NEW.city, 'postalCode', NEW.postal_code), CAST(unixepoch('subsec') * 1000 AS INTEGER));
      END;
      CREATE TRIGGER rqs_addresses_replaced AFTER UPDATE ON rqs_addresses BEGIN
        INSERT INTO rqs_changes (service, kind, record_id, record, at) VALUES ('addresses', 'replaced', NEW.id,
          json_object('name', NEW.name, 'city', NEW.city, 'postalCode', NEW.postal_code), CAST(unixepoch('subsec') * 1000 AS INTEGER));
      END;
      CREATE TRIGGER rqs_addresses_deleted AFTER DELETE ON rqs_addresses BEGIN
        INSERT INTO rqs_changes (service, kind, record_id, record, at) VALUES ('addresses', 'deleted', OLD.id, NULL, CAST(unixepoch('subsec') * 1000 AS INTEGER));
      END;
    `
  },
  // Issue 19: `contains` and the search compare text folded by one rule for every
  // store (src/domain/case-fold.ts), computed in TypeScript: the store writes a
  // folded copy of each text field with the record, and this step folds the
  // rows already held (rqs_fold is that function, see ./migrate.ts).
  {
    version: 5,
    name: 'folded text for search',
    sql: `
      ALTER TABLE rqs_students ADD COLUMN first_name_folded TEXT NOT NULL DEFAULT '';
      ALTER TABLE rqs_students ADD COLUMN last_name_folded TEXT NOT NULL DEFAULT '';
      ALTER TABLE rqs_addresses ADD COLUMN name_folded TEXT NOT NULL DEFAULT '';
      ALTER TABLE rqs_addresses ADD COLUMN city_folded TEXT NOT NULL DEFAULT '';
      ALTER TABLE rqs_addresses ADD COLUMN postal_code_folded TEXT NOT NULL DEFAULT '';

      -- A change is a change of the record's own fields: writing its folded copies is none.
      DROP TRIGGER rqs_students_replaced;
      CREATE TRIGGER rqs_students_replaced AFTER UPDATE OF first_name, last_name, age ON rqs_students BEGIN
        INSERT INTO rqs_changes (service, kind, record_id, record, at) VALUES ('students', 'replaced', NEW.id,
          json_object('firstName', NEW.first_name, 'lastName', NEW.last_name, 'age', NEW.age), CAST(unixepoch('subsec') * 1000 AS INTEGER));
      END;
      DROP TRIGGER rqs_addresses_replaced;
      CREATE TRIGGER rqs_addresses_replaced AFTER UPDATE OF name, city, postal_code ON rqs_addresses BEGIN
        INSERT INTO rqs_changes (service, kind, record_id, record, at) VALUES ('addresses', 'replaced', NEW.id,
          json_object('name', NEW.name, 'city', NEW.city, 'postalCode', NEW.postal_code), CAST(unixepoch('subsec') * 1000 AS INTEGER));
      END;

      UPDATE rqs_students SET first_name_folded = rqs_fold(first_name), last_name_folded = rqs_fold(last_name);
      UPDATE rqs_addresses SET name_folded = rqs_fold(name), city_folded = rqs_fold(city), postal_code_folded = rqs_fold(postal_code);
    `
  },
  // Issue 21: any collection a user declares is kept in one generic table,
  // like the built-in ones. rqs_collections remembers what each table holds
  // (the storage-relevant part of its declaration: table, id type, fields with
  // type and required) so a changed declaration is caught on open (see
  // ./collections.ts); rqs_counters keeps each collection's record count and
  // next id, replacing the two built-in counter tables. The built-ins are
  // registered as they are at step 5.
  {
    version: 6,
    name: 'collection registry',
    sql: `
      CREATE TABLE rqs_collections (
        name TEXT PRIMARY KEY,
        table_name TEXT NOT NULL UNIQUE,
        -- number (count, sequence), bigint (int64) or string (uuid)
        id_type TEXT NOT NULL,
        -- {"field": {"type": "string", "required": true}, …} in declaration order
        fields TEXT NOT NULL
      );
      INSERT INTO rqs_collections (name, table_name, id_type, fields) VALUES
        ('students', 'rqs_students', 'number',
          '{"firstName":{"type":"string","required":true},"lastName":{"type":"string","required":true},"age":{"type":"integer","required":true}}'),
        ('addresses', 'rqs_addresses', 'bigint',
          '{"name":{"type":"string","required":true},"city":{"type":"string","required":true},"postalCode":{"type":"string","required":true}}');

      -- n: the records held; next: the next id to issue (see the id rules in src/domain/collection.ts).
      CREATE TABLE rqs_counters (
        collection TEXT PRIMARY KEY,
        n INTEGER NOT NULL,
        next INTEGER NOT NULL
      );
      INSERT INTO rqs_counters (collection, n, next) SELECT 'students', n, next_id FROM rqs_student_count WHERE singleton = 1;
      INSERT INTO rqs_counters (collection, n, next) SELECT 'addresses', (SELECT count(*) FROM rqs_addresses), next FROM rqs_address_ids WHERE singleton = 1;
      DROP TABLE rqs_student_count;
      DROP TABLE rqs_address_ids;
    `
  },
  // Webhooks (issue 34): the subscriptions (the rest of each as JSON), the dispatchers' one
  // position in the change log, and the queue of deliveries, leased to one attempt at a time.
  {
    version: 7,
    name: 'webhooks',
    sql: `
      CREATE TABLE rqs_webhooks (
        id TEXT PRIMARY KEY,
        enabled INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE TABLE rqs_webhook_position (
        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
        seq INTEGER NOT NULL
      );
      CREATE TABLE rqs_webhook_deliveries (
        webhook_id TEXT NOT NULL REFERENCES rqs_webhooks (id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        record_key TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        retry_until INTEGER NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_at INTEGER,
        last_attempt_at INTEGER,
        last_status INTEGER,
        last_error TEXT,
        last_duration_ms INTEGER,
        leased_by TEXT,
        lease_until INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (webhook_id, id)
      );
      CREATE INDEX rqs_webhook_deliveries_due ON rqs_webhook_deliveries (next_at) WHERE state = 'pending';
      CREATE INDEX rqs_webhook_deliveries_key ON rqs_webhook_deliveries (webhook_id, record_key, seq) WHERE state = 'pending';
    `
  },
  // A record's recent changes (the feed's history of one record): a seek, not a scan of the log.
  // The log holds the retention window only, so building the index on an existing file is short.
  {
    version: 8,
    name: 'change log by record',
    sql: `
      CREATE INDEX IF NOT EXISTS rqs_changes_record ON rqs_changes (service, record_id, seq);
    `
  }
]

