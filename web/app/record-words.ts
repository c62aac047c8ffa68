import { wordsOf } from './words.js'

/** The record page's own texts (the shared ones come from i18n.ts). */
export const recordWords = wordsOf({
  en: {
    openRecord: 'Open {what}',
    backTo: 'Back to {collection}',
    fields: 'Fields',
    notFound: '{collection} has no record with id {id}.',
    referredBy: 'Referred to by',
    referredByField: '{collection} ({field}): {n}',
    noReferences: 'No record refers to this one.',
    showAllReferring: 'All {n}',
    editing: 'Editing',
    history: 'Recent changes',
    noHistory: 'No changes of this record are kept.',
    historyCreated: 'Created',
    historyUpdated: 'Updated',
    historyDeleted: 'Deleted'
  },
  de: {
    openRecord: '{what} öffnen',
    backTo: 'Zurück zu {collection}',
    fields: 'Felder',
    notFound: '{collection} hat keinen Eintrag mit der Id {id}.',
    referredBy: 'Verweise auf diesen Eintrag',
    referredByField: '{collection} ({field}): {n}',
    noReferences: 'Kein Eintrag verweist auf diesen.',
    showAllReferring: 'Alle {n}',
    editing: 'Bearbeiten',
    history: 'Letzte Änderungen',
    noHistory: 'Von diesem Eintrag sind keine Änderungen gespeichert.',
    historyCreated: 'Angelegt',
    historyUpdated: 'Geändert',
    historyDeleted: 'Gelöscht'
  }
})
