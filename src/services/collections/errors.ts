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
  },
  COLLECTION_NOT_FOUND: {
    status: 404, description: 'No collection has this name (it may have been removed). `GET /collections` lists them.',
    messages: {
      en: { title: 'Collection not found', message: 'The collection {field} does not exist.' },
      de: { title: 'Sammlung nicht gefunden', message: 'Die Sammlung {field} existiert nicht.' }
    }
  },
  COLLECTION_EXISTS: {
    status: 409, description: 'A collection of this name exists already (`POST /collections` creates a new one; `PUT /collections/{name}` changes one).',
    messages: {
      en: { title: 'Collection exists', message: 'A collection named {field} exists already.' },
      de: { title: 'Sammlung existiert bereits', message: 'Eine Sammlung namens {field} existiert bereits.' }
    }
  },
  COLLECTION_BUILT_IN: {
    status: 403, description: 'The collection is built into rqs (students, addresses, …): it can be read through the admin API but not changed or removed.',
    messages: {
      en: { title: 'Built-in collection', message: 'The collection {field} is built in and cannot be changed.' },
      de: { title: 'Eingebaute Sammlung', message: 'Die Sammlung {field} ist eingebaut und kann nicht geändert werden.' }
    }
  },
  DECLARATION_INVALID: {
    status: 400, description: 'The collection\'s declaration is not one rqs applies: `detail` names the JSON path and what is wrong, as a start with the declarations file would (docs/collections.md).',
    messages: {
      en: { title: 'Invalid declaration', message: 'The declaration of the collection is not valid.' },
      de: { title: 'Ungültige Deklaration', message: 'Die Deklaration der Sammlung ist nicht gültig.' }
    }
  },
  CHANGE_REFUSED: {
    status: 409, description: 'The change of the collection cannot be applied: a field would change in a way no store makes (a kind that does not convert, a field made required), or records held block it (values that do not convert, duplicates of a new unique key). Each entry of `errors` names a field and the records; nothing was changed. `POST /collections/{name}/plan` shows the whole plan.',
    messages: {
      en: { title: 'Change refused', message: 'The change of {field} cannot be applied to the records held.' },
      de: { title: 'Änderung abgelehnt', message: 'Die Änderung von {field} lässt sich auf die gespeicherten Datensätze nicht anwenden.' }
    }
  },
  COLLECTION_REFERENCED: {
    status: 409, description: 'The collection cannot be removed: other collections reference its records (`x-references`). `errors` names each referring collection and field; remove those references or collections first. Nothing was changed.',
    messages: {
      en: { title: 'Collection referenced', message: 'The collection {field} references records of this one.' },
      de: { title: 'Sammlung referenziert', message: 'Die Sammlung {field} verweist auf Datensätze dieser Sammlung.' }
    }
  },
  CONFIRMATION_REQUIRED: {
    status: 409, description: 'The change loses stored values (a field dropped: add `?confirm=drop`; the collection removed: add `?confirm=<name>`). `detail` says how many values go; nothing was changed.',
    messages: {
      en: { title: 'Confirmation required', message: 'The change loses stored values of {field}: confirm it.' },
      de: { title: 'Bestätigung erforderlich', message: 'Die Änderung verwirft gespeicherte Werte von {field}: bitte bestätigen.' }
    }
  },
  IF_MATCH_REQUIRED: {
    status: 428, description: 'A change or removal of a collection must send `If-Match` with the ETag of `GET /collections/{name}`, so that two administrators cannot overwrite each other\'s change.',
    messages: {
      en: { title: 'If-Match required', message: 'Send If-Match with the collection\'s ETag to change {field}.' },
      de: { title: 'If-Match erforderlich', message: 'Senden Sie If-Match mit dem ETag der Sammlung, um {field} zu ändern.' }
    }
  }
} satisfies ErrorDefinitions

declare module '../../http/errors/catalogue.js' {
  interface ServiceErrorCodes {
    collections: typeof COLLECTION_ERRORS
  }
}
