/**
 * A declared collection differs from the one the database holds in a way rqs
 * does not migrate by itself (a field removed or retyped, a required field
 * added, another id type). Defined here until src/domain/errors.ts has the
 * same class (the SQLite store adds it there); then this file re-exports it.
 */
export class CollectionChangedError extends Error {
  override name = 'CollectionChangedError'
  constructor (readonly collection: string, readonly changes: string[], where: string) {
    super(`collection ${collection} no longer matches the one stored in ${where}: ${changes.join('; ')} (rqs keeps stored data: declare added fields as optional, or use a new collection name)`)
  }
}
