import type pg from 'pg'
import type { CollectionDeclaration, SchemaMove, SharedSchema } from '../../domain/index.js'
import { SCHEMA_CHANGED_STATE } from './errors.js'
import { literal } from './layout.js'
import type { Following, PostgresListener } from './listener.js'

/**
 * Instances on one PostgreSQL database keep their collections' declarations
 * in step. The registry's version lives in the database (rqs_schema_head):
 * a trigger on rqs_schema raises it and NOTIFYs SCHEMA_CHANNEL in the
 * change's own transaction, so the announcement goes out at its commit and
 * never for a change rolled back. Each instance LISTENs from its start, on
 * its listening connection (./listener.ts, shared with the change feed while
 * the feed has someone to feed), and reads the head every few seconds,
 * which covers a notification lost with its connection.
 *
 * The trigger also refuses a version that does not follow the one held (a
 * change planned against a declaration another instance has changed since),
 * so two instances never overwrite each other's change.
 *
 * A write holds only under the declaration the database holds: once the
 * registry pins a collection at its version, each write statement of its
 * store carries `rqs_schema_is(name, version)` as a one-time filter, which
 * PostgreSQL evaluates before the statement touches a row (or calls a
 * create function) and which raises SCHEMA_CHANGED_STATE when the version
 * moved. No extra round trip; the built-in collections, which never change,
 * are never pinned and pay nothing.
 */

/** The channel a change of a collection's declaration is announced on. */
export const SCHEMA_CHANNEL = 'rqs_schema'

/** How often the head is read even without a notification (ms). */
const CHECK_INTERVAL_MS = 2000

/**
 * The head, the announcing trigger and the guard: created in the start's
 * migration transaction (under its advisory lock, so instances starting
 * together do not race), each only when missing.
 */
const SETUP = `
  CREATE TABLE IF NOT EXISTS rqs_schema (name text PRIMARY KEY, version integer NOT NULL, source jsonb);
  CREATE TABLE IF NOT EXISTS rqs_schema_head (one boolean PRIMARY KEY DEFAULT true CHECK (one), version bigint NOT NULL);
  INSERT INTO rqs_schema_head (one, version) VALUES (true, 0) ON CONFLICT DO NOTHING;
  CREATE OR REPLACE FUNCTION rqs_schema_moved() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE head bigint;
  BEGIN
    IF TG_OP = 'UPDATE' AND NEW.version = OLD.version AND NEW.source IS NOT DISTINCT FROM OLD.source THEN
      RETURN NULL; -- the same version recorded twice (instances starting together)
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.version <> OLD.version + 1 THEN
      RAISE EXCEPTION 'the declaration of % is at version % already, this change was planned from version %', NEW.name, OLD.version, NEW.version - 1
        USING ERRCODE = ${literal(SCHEMA_CHANGED_STATE)}, DETAIL = NEW.name;
    END IF;
    UPDATE rqs_schema_head SET version = version + 1 RETURNING version INTO head;
    PERFORM pg_notify(${literal(SCHEMA_CHANNEL)}, json_build_object('registry', head, 'name', NEW.name, 'version', NEW.version)::text);
    RETURN NULL;
  END $$;
  CREATE OR REPLACE FUNCTION rqs_schema_is(p_name text, p_version integer) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
  DECLARE held integer;
  BEGIN
    SELECT version INTO held FROM rqs_schema WHERE name = p_name;
    IF held IS DISTINCT FROM p_version THEN
      RAISE EXCEPTION 'the declaration of % is at version %, this write was made with version %', p_name, held, p_version
        USING ERRCODE = ${literal(SCHEMA_CHANGED_STATE)}, DETAIL = p_name;
    END IF;
    RETURN true;
  END $$;
  CREATE OR REPLACE FUNCTION rqs_schema_within(p_name text, p_from integer, p_to integer) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
  DECLARE held integer;
  BEGIN
    SELECT version INTO held FROM rqs_schema WHERE name = p_name;
    IF held IS NULL OR held < p_from OR held > p_to THEN
      RAISE EXCEPTION 'the declaration of % is at version %, this write was made with versions % to %', p_name, held, p_from, p_to
        USING ERRCODE = ${literal(SCHEMA_CHANGED_STATE)}, DETAIL = p_name;
    END IF;
    RETURN true;
  END $$;
  DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'rqs_schema_moved' AND tgrelid = 'rqs_schema'::regclass) THEN
      CREATE TRIGGER rqs_schema_moved AFTER INSERT OR UPDATE ON rqs_schema FOR EACH ROW EXECUTE FUNCTION rqs_schema_moved();
    END IF;
  END $$`

/** Creates what following needs; runs in the start's migration transaction. */
export async function ensureSchemaFollowing (client: pg.ClientBase): Promise<void> {
  await client.query(SETUP)
}

/**
 * The condition a pinned collection's write statements carry: true, or an
 * error when the database holds another version (`until`: any version from
 * `version` to it, while this instance makes a change its old writes fit).
 */
export function schemaGuard (name: string, version: number, until?: number): string {
  if (until !== undefined && until !== version) return `rqs_schema_within(${literal(name)}, ${version}, ${until})`
  return `rqs_schema_is(${literal(name)}, ${version})`
}

/**
 * The declaration with its fields in the order the database registered them
 * (rqs_collections): the order its create routines take their arguments in.
 * A declaration kept in rqs_schema comes back from jsonb with its members
 * reordered, so one read from there (after a restart, or another instance's
 * change) would bind a value to another field's argument.
 */
export async function inStoredOrder (client: pg.ClientBase, declaration: CollectionDeclaration): Promise<CollectionDeclaration> {
  const row = (await client.query<{ fields: Array<{ name: string }> }>('SELECT fields FROM rqs_collections WHERE name = $1', [declaration.name])).rows[0]
  if (row === undefined) return declaration
  const order = row.fields.map((f) => f.name)
  const rank = (name: string): number => { const at = order.indexOf(name); return at === -1 ? order.length : at }
  const fields = Object.fromEntries(Object.entries(declaration.fields).sort(([a], [b]) => rank(a) - rank(b)))
  return { ...declaration, fields }
}

/** A store the follower can pin. */
export interface PinnableStore {
  pin: (version: number, until?: number) => void
}

export interface SchemaFollowerOptions {
  pool: pg.Pool
  /** The instance's listening connection (shared with the change feed). */
  listener: PostgresListener
  /** The stores' collections and the change log's declarations, which a removal elsewhere takes out. */
  collections: Map<string, PinnableStore>
  declarations: Map<string, CollectionDeclaration>
}

export class PostgresSchemaFollower implements SharedSchema {
  readonly #options: SchemaFollowerOptions
  readonly #watchers = new Set<(why: SchemaMove) => void>()
  #head: bigint | undefined
  #following: Promise<Following> | undefined
  #checkTimer: NodeJS.Timeout | undefined

  constructor (options: SchemaFollowerOptions) {
    this.#options = options
  }

  watch (moved: (why: SchemaMove) => void): () => void {
    this.#watchers.add(moved)
    if (this.#watchers.size === 1) this.#start()
    return () => {
      this.#watchers.delete(moved)
      if (this.#watchers.size === 0) void this.#stop()
    }
  }

  pin (name: string, version: number, until?: number): void {
    this.#options.collections.get(name)?.pin(version, until)
  }

  forget (name: string): void {
    this.#options.collections.delete(name)
    this.#options.declarations.delete(name)
  }

  /** A write met a newer declaration than this instance's: follow now rather than at the next check. */
  stale (): void {
    this.#moved('refused')
  }

  async close (): Promise<void> {
    this.#watchers.clear()
    await this.#stop()
  }

  #moved (why: SchemaMove): void {
    for (const watcher of this.#watchers) watcher(why)
  }

  #start (): void {
    // Once it listens (and again after a lost connection is back), the head is read: a change committed before was announced to nobody here.
    this.#following = this.#options.listener.follow(SCHEMA_CHANNEL, { notified: () => { this.#moved('announced') }, reopened: () => { void this.#check() } })
    this.#checkTimer = setInterval(() => { void this.#check() }, CHECK_INTERVAL_MS)
    this.#checkTimer.unref()
  }

  async #stop (): Promise<void> {
    clearInterval(this.#checkTimer)
    this.#checkTimer = undefined
    const following = this.#following
    this.#following = undefined
    await (await following)?.stop()
  }

  /** Reads the head; a move since the last read (a notification lost, or none sent yet) is followed. */
  async #check (): Promise<void> {
    if (this.#watchers.size === 0) return
    let head: bigint
    try {
      const row = (await this.#options.pool.query<{ version: string }>({ name: 'rqs-schema-head', text: 'SELECT version::text AS version FROM rqs_schema_head' })).rows[0]
      head = BigInt(row?.version ?? '0')
    } catch {
      return // the database is away: the next check tries again
    }
    const seen = this.#head
    this.#head = head
    // The first read follows too: a change committed before LISTEN began was announced to nobody here.
    if (seen === undefined || seen !== head) this.#moved('announced')
  }
}
