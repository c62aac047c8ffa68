/**
 * The application's own texts in English and German. The services' error
 * messages are not here: they arrive translated in the problem details,
 * because every request carries Accept-Language.
 */
export type Lang = 'en' | 'de'
export const LANGS: readonly Lang[] = ['en', 'de']

const en = {
  appTitle: 'Records',
  skipLink: 'Skip to content',
  views: 'Views',
  students: 'Students',
  addresses: 'Addresses',
  language: 'Language',
  id: 'Id',
  firstName: 'First name',
  lastName: 'Last name',
  age: 'Age',
  name: 'Name',
  city: 'City',
  postalCode: 'Postal code',
  actions: 'Actions',
  newStudent: 'New student',
  newAddress: 'New address',
  addStudent: 'Add student',
  addAddress: 'Add address',
  search: 'Search',
  searchHintStudents: 'Finds first and last names containing the text.',
  searchHintAddresses: 'Finds names, cities and postal codes containing the text.',
  rowsPerPage: 'Rows per page',
  sortBy: 'Sort by',
  sortDefault: 'Id (order of creation)',
  ascending: 'ascending',
  descending: 'descending',
  sortColumn: 'Sort by {field}',
  first: 'First page',
  last: 'Last page',
  filters: 'Filters',
  filterContains: '{field} contains',
  filterMin: '{field} at least',
  filterMax: '{field} at most',
  filterAny: 'any',
  clearFilters: 'Clear filters',
  nameKeptShort: 'not editable',
  newRecord: 'New record',
  previous: 'Previous page',
  next: 'Next page',
  range: '{from}–{to} of {total}',
  rangeOpen: '{from}–{to}',
  reload: 'Reload',
  loading: 'Loading…',
  noRecords: 'No records yet. Add the first one above.',
  noMatches: 'Nothing matches “{q}”.',
  edit: 'Edit',
  save: 'Save',
  cancel: 'Cancel',
  delete: 'Delete',
  editRecord: 'Edit {what}',
  deleteRecord: 'Delete {what}',
  confirmDeleteTitle: 'Delete this record?',
  confirmDeleteText: '{what} will be deleted. This cannot be undone.',
  added: '{what} was added.',
  saved: '{what} was saved.',
  deleted: '{what} was deleted.',
  conflict: 'Someone else changed this record meanwhile. Your changes were not saved; the fields now show the current version.',
  yourChanges: 'Your changes were: {values}',
  deleteConflict: 'Someone else changed this record meanwhile, so it was not deleted. Above is the current version: delete it anyway?',
  changedElsewhere: 'Someone else just changed this record.',
  gone: 'This record no longer exists: someone else deleted it.',
  nameKept: 'The name of a stored address cannot be changed.',
  live: 'Live',
  liveConnecting: 'Reconnecting…',
  liveTitle: 'Changes made elsewhere appear here without reloading.',
  token: 'Access token',
  tokenNeeded: 'This server needs an access token.',
  tokenRejected: 'The access token was not accepted. Enter another one.',
  tokenHint: 'Kept for this browser tab only, and sent with every request.',
  useToken: 'Use token',
  forgetToken: 'Forget token',
  tokenButton: 'Token',
  close: 'Close',
  forbidden: 'Your access token does not allow this.',
  networkError: 'The server could not be reached. Check the connection and try again.',
  retry: 'Try again',
  reference: 'Reference: {id}',
  unavailable: 'This service is not running on this server.',
  serverError: 'The server answered with status {status}.',
  addRecord: 'Add',
  exportCsv: 'Export CSV',
  importCsv: 'Import CSV',
  exporting: 'Exporting',
  importing: 'Importing',
  exported: '{n} records exported.',
  exportFailed: 'The export failed (status {status}).',
  imported: '{n} records added; {refused} refused.',
  importColumns: 'The file has columns this collection does not have: {columns}. Its columns are {expected}.',
  line: 'Line',
  importPreview: '{file}: {n} records to import.',
  importMapping: 'Columns',
  importBadLines: '{n} lines cannot be imported; nothing is written until the file is fixed.',
  importStart: 'Import {n} records',
  importReplaceStart: 'Import and replace',
  importCancelled: 'Import cancelled after {done} of {total} records.',
  importDone: '{n} records added, {replaced} replaced; {refused} refused.',
  importReport: 'Download the error report',
  importOneRequest: 'The {n} new records are sent as one request: all are stored or none.',
  importChunked: 'The new records are sent in {chunks} requests of up to {size} records: each request is stored whole or not at all, and the requests stored before a refused one stay stored.',
  importStopAtRefused: 'Stop at the first refused request',
  importById: '{n} rows have an id: each then creates or replaces the record at its id, one request each.',
  importNothingStored: 'Nothing was stored: the import is all or nothing, and the server refused the lines below.',
  importChunksStored: 'Sent in requests of up to {size} records: lines {lines} were stored; nothing of lines {refused} was stored (refused).',
  importNotSent: '{n} records were not sent.',
  importUnanswered: 'The server could not be reached for lines {lines}: whether they were stored is not known; read the list before importing them again.',
  importIdRefused: 'The file has an id column, but this collection gives ids itself (a new record cannot choose its id here). Remove the id column to import the rows as new records.',
  importSeparator: 'The header looks separated by "{separator}": save the file with commas between the columns.',
  importEmpty: 'The file has no header row.',
  importReplaceWarning: '{replaced} of these {n} records would replace a record instead of being added: this server gives a new student the number of records held as its id, and id {id} is held by {what}, so it is replaced first and then each following record replaces the one before. Start the server with --student-ids sequence to never reuse an id.',
  replaceWarning: 'The next id, {id}, is held by {what}: this server gives a new student the number of records held as its id, so adding now replaces {what}. Start the server with --student-ids sequence to never reuse an id.',
  addAnyway: 'Add and replace',
  addedReplacing: '{what} was added as id {id}, replacing the student held there.',
  yes: 'yes',
  no: 'no',
  unset: '(none)'
}

export type MessageKey = keyof typeof en

const de: Record<MessageKey, string> = {
  appTitle: 'Datensätze',
  skipLink: 'Zum Inhalt springen',
  views: 'Ansichten',
  students: 'Studierende',
  addresses: 'Adressen',
  language: 'Sprache',
  id: 'Nr.',
  firstName: 'Vorname',
  lastName: 'Nachname',
  age: 'Alter',
  name: 'Name',
  city: 'Ort',
  postalCode: 'Postleitzahl',
  actions: 'Aktionen',
  newStudent: 'Neuer Eintrag',
  newAddress: 'Neue Adresse',
  addStudent: 'Studierende hinzufügen',
  addAddress: 'Adresse hinzufügen',
  search: 'Suchen',
  searchHintStudents: 'Findet Vor- und Nachnamen, die den Text enthalten.',
  searchHintAddresses: 'Findet Namen, Orte und Postleitzahlen, die den Text enthalten.',
  rowsPerPage: 'Zeilen pro Seite',
  sortBy: 'Sortieren nach',
  sortDefault: 'Nr. (Reihenfolge der Erfassung)',
  ascending: 'aufsteigend',
  descending: 'absteigend',
  sortColumn: 'Nach {field} sortieren',
  first: 'Erste Seite',
  last: 'Letzte Seite',
  filters: 'Filter',
  filterContains: '{field} enthält',
  filterMin: '{field} mindestens',
  filterMax: '{field} höchstens',
  filterAny: 'beliebig',
  clearFilters: 'Filter zurücksetzen',
  nameKeptShort: 'nicht änderbar',
  newRecord: 'Neuer Eintrag',
  previous: 'Vorige Seite',
  next: 'Nächste Seite',
  range: '{from}–{to} von {total}',
  rangeOpen: '{from}–{to}',
  reload: 'Neu laden',
  loading: 'Wird geladen…',
  noRecords: 'Noch keine Einträge. Fügen Sie oben den ersten hinzu.',
  noMatches: 'Nichts passt zu „{q}“.',
  edit: 'Bearbeiten',
  save: 'Speichern',
  cancel: 'Abbrechen',
  delete: 'Löschen',
  editRecord: '{what} bearbeiten',
  deleteRecord: '{what} löschen',
  confirmDeleteTitle: 'Diesen Eintrag löschen?',
  confirmDeleteText: '{what} wird gelöscht. Das lässt sich nicht rückgängig machen.',
  added: '{what} wurde hinzugefügt.',
  saved: '{what} wurde gespeichert.',
  deleted: '{what} wurde gelöscht.',
  conflict: 'Jemand anderes hat diesen Eintrag inzwischen geändert. Ihre Änderungen wurden nicht gespeichert; die Felder zeigen jetzt den aktuellen Stand.',
  yourChanges: 'Ihre Änderungen waren: {values}',
  deleteConflict: 'Jemand anderes hat diesen Eintrag inzwischen geändert, deshalb wurde er nicht gelöscht. Oben steht der aktuelle Stand: trotzdem löschen?',
  changedElsewhere: 'Jemand anderes hat diesen Eintrag gerade geändert.',
  gone: 'Diesen Eintrag gibt es nicht mehr: jemand anderes hat ihn gelöscht.',
  nameKept: 'Der Name einer gespeicherten Adresse lässt sich nicht ändern.',
  live: 'Live',
  liveConnecting: 'Verbinde neu…',
  liveTitle: 'Änderungen von anderen erscheinen hier ohne Neuladen.',
  token: 'Zugriffstoken',
  tokenNeeded: 'Dieser Server verlangt ein Zugriffstoken.',
  tokenRejected: 'Das Zugriffstoken wurde nicht akzeptiert. Geben Sie ein anderes ein.',
  tokenHint: 'Wird nur für diesen Browser-Tab gespeichert und mit jeder Anfrage gesendet.',
  useToken: 'Token verwenden',
  forgetToken: 'Token vergessen',
  tokenButton: 'Token',
  close: 'Schließen',
  forbidden: 'Ihr Zugriffstoken erlaubt das nicht.',
  networkError: 'Der Server ist nicht erreichbar. Prüfen Sie die Verbindung und versuchen Sie es erneut.',
  retry: 'Erneut versuchen',
  reference: 'Referenz: {id}',
  unavailable: 'Dieser Dienst läuft auf diesem Server nicht.',
  serverError: 'Der Server antwortete mit Status {status}.',
  addRecord: 'Hinzufügen',
  exportCsv: 'CSV exportieren',
  importCsv: 'CSV importieren',
  exporting: 'Export läuft',
  importing: 'Import läuft',
  exported: '{n} Einträge exportiert.',
  exportFailed: 'Der Export ist fehlgeschlagen (Status {status}).',
  imported: '{n} Einträge hinzugefügt; {refused} abgelehnt.',
  importColumns: 'Die Datei hat Spalten, die diese Sammlung nicht hat: {columns}. Ihre Spalten sind {expected}.',
  line: 'Zeile',
  importPreview: '{file}: {n} Einträge zum Importieren.',
  importMapping: 'Spalten',
  importBadLines: '{n} Zeilen können nicht importiert werden; nichts wird geschrieben, bis die Datei korrigiert ist.',
  importStart: '{n} Einträge importieren',
  importReplaceStart: 'Importieren und ersetzen',
  importCancelled: 'Import nach {done} von {total} Einträgen abgebrochen.',
  importDone: '{n} Einträge hinzugefügt, {replaced} ersetzt; {refused} abgelehnt.',
  importReport: 'Fehlerbericht herunterladen',
  importOneRequest: 'Die {n} neuen Einträge werden in einer Anfrage gesendet: Alle werden gespeichert oder keiner.',
  importChunked: 'Die neuen Einträge werden in {chunks} Anfragen mit bis zu {size} Einträgen gesendet: Jede Anfrage wird ganz oder gar nicht gespeichert, und vor einer abgelehnten gespeicherte Anfragen bleiben gespeichert.',
  importStopAtRefused: 'Bei der ersten abgelehnten Anfrage anhalten',
  importById: '{n} Zeilen haben eine Id: Jede legt danach den Eintrag mit ihrer Id an oder ersetzt ihn, eine Anfrage je Zeile.',
  importNothingStored: 'Nichts wurde gespeichert: Der Import gilt ganz oder gar nicht, und der Server hat die folgenden Zeilen abgelehnt.',
  importChunksStored: 'In Anfragen mit bis zu {size} Einträgen gesendet: Die Zeilen {lines} wurden gespeichert; von den Zeilen {refused} wurde nichts gespeichert (abgelehnt).',
  importNotSent: '{n} Einträge wurden nicht gesendet.',
  importUnanswered: 'Für die Zeilen {lines} war der Server nicht erreichbar: Ob sie gespeichert wurden, ist unbekannt; prüfen Sie die Liste, bevor Sie sie erneut importieren.',
  importIdRefused: 'Die Datei hat eine Spalte id, aber diese Sammlung vergibt Ids selbst (ein neuer Eintrag kann seine Id hier nicht wählen). Ohne die Spalte id werden die Zeilen als neue Einträge importiert.',
  importSeparator: 'Die Kopfzeile scheint mit „{separator}“ getrennt: Speichern Sie die Datei mit Kommas zwischen den Spalten.',
  importEmpty: 'Die Datei hat keine Kopfzeile.',
  importReplaceWarning: '{replaced} dieser {n} Einträge würden einen Eintrag ersetzen, statt hinzugefügt zu werden: Dieser Server gibt neuen Studierenden die Anzahl der gespeicherten Einträge als Id, und die Id {id} gehört {what}; dieser Eintrag wird zuerst ersetzt, danach ersetzt jeder weitere den vorigen. Mit --student-ids sequence vergibt der Server keine Id zweimal.',
  replaceWarning: 'Die nächste Id, {id}, gehört {what}: Dieser Server gibt neuen Studierenden die Anzahl der gespeicherten Einträge als Id, Hinzufügen ersetzt also {what}. Mit --student-ids sequence vergibt der Server keine Id zweimal.',
  addAnyway: 'Hinzufügen und ersetzen',
  addedReplacing: '{what} wurde mit der Id {id} hinzugefügt und ersetzt den Eintrag, der dort stand.',
  yes: 'ja',
  no: 'nein',
  unset: '(keine Angabe)'
}

const TABLES: Record<Lang, Record<MessageKey, string>> = { en, de }

/** The page's texts in one language; `lang` is that language (numbers and field messages follow it). */
export type Translate = ((key: MessageKey, params?: Record<string, string | number>) => string) & { lang: Lang }

export function translator (lang: Lang): Translate {
  const table = TABLES[lang]
  const t = (key: MessageKey, params?: Record<string, string | number>): string => {
    const text = table[key]
    return params === undefined ? text : text.replace(/\{(\w+)\}/g, (whole, name: string) => String(params[name] ?? whole))
  }
  return Object.assign(t, { lang })
}

/** 200000 → "200,000" (en) or "200.000" (de). */
export function formatNumber (lang: Lang, n: number): string {
  return new Intl.NumberFormat(lang === 'de' ? 'de-DE' : 'en-US').format(n)
}

const STORAGE_KEY = 'rqs.lang'

function isLang (value: unknown): value is Lang {
  return value === 'en' || value === 'de'
}

/** The language chosen with the switch earlier, else the browser's first of English or German, else English. */
export function initialLanguage (): Lang {
  try {
    const stored = localStorage.getItem(STORAGE_KEY)
    if (isLang(stored)) return stored
  } catch { /* storage blocked: fall through */ }
  for (const tag of navigator.languages ?? [navigator.language]) {
    const primary = tag.toLowerCase().split('-')[0]
    if (isLang(primary)) return primary
  }
  return 'en'
}

export function rememberLanguage (lang: Lang): void {
  try { localStorage.setItem(STORAGE_KEY, lang) } catch { /* storage blocked: the choice lasts for this page */ }
}

/** What the requests send, so problem details come back in the page's language. */
export function acceptLanguage (lang: Lang): string {
  return lang === 'de' ? 'de, en;q=0.5' : 'en'
}
