import type { ErrorDefinitions } from '../../http/errors/index.js'

/** The codes of declared collections; `{field}` is the record, `books/7`. */
export const COLLECTION_ERRORS = {
  RECORD_NOT_FOUND: {
    status: 404, description: 'No record of the collection has the id in the path.',
    messages: {
      en: { title: 'Record not found', message: 'The record {field} does not exist.' },
      de: { title: 'Datensatz nicht gefunden', message: 'Der Datensatz {field} existiert nicht.' }
    }
  },
  DUPLICATE_KEY: {
    status: 409, description: 'The write would give a second record the values of a unique key (the collection\'s `unique`). `errors[0].field` names the key\'s fields (`title, year`) and `detail` the record that holds them (`/books/3`). Nothing was written; change the values, or change that record instead.',
    messages: {
      en: { title: 'Duplicate key', message: 'Another record already has this {field}.' },
      de: { title: 'Doppelter Schlüssel', message: 'Ein anderer Datensatz hat bereits diese Werte für {field}.' }
    }
  },
  REFERENCE_NOT_FOUND: {
    status: 422, description: 'A reference field (x-references) of the written record names a record its collection does not hold; nothing was written. The problem\'s errors name the field; the detail names the missing record.',
    messages: {
      en: { title: 'Referenced record not found', message: 'The field {field} names a record that does not exist.' },
      de: { title: 'Referenzierter Datensatz nicht gefunden', message: 'Das Feld {field} nennt einen Datensatz, der nicht existiert.' }
    }
  },
  RECORD_REFERENCED: {
    status: 409, description: 'The record to delete is still named by records of another collection whose reference field says "x-on-delete": "restrict" (the default); nothing was deleted. The detail names the referring collection and how many records refer.',
    messages: {
      en: { title: 'Record still referenced', message: 'The record {field} is still referenced by other records.' },
      de: { title: 'Datensatz wird noch referenziert', message: 'Der Datensatz {field} wird noch von anderen Datensätzen referenziert.' }
    }
  }
} satisfies ErrorDefinitions

declare module '../../http/errors/catalogue.js' {
  interface ServiceErrorCodes {
    collections: typeof COLLECTION_ERRORS
  }
}
