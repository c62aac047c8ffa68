import type { ErrorDefinitions } from '../../http/errors/index.js'

/** The codes of declared collections; `{field}` is the record, `books/7`. */
export const COLLECTION_ERRORS = {
  RECORD_NOT_FOUND: {
    status: 404, description: 'No record of the collection has the id in the path.',
    messages: {
      en: { title: 'Record not found', message: 'The record {field} does not exist.' },
      de: { title: 'Datensatz nicht gefunden', message: 'Der Datensatz {field} existiert nicht.' }
    }
  }
} satisfies ErrorDefinitions

declare module '../../http/errors/catalogue.js' {
  interface ServiceErrorCodes {
    collections: typeof COLLECTION_ERRORS
  }
}
