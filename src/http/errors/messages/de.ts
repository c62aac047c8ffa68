import { FIELD_TEMPLATES } from './fields.js'
import type { MessageTable } from './types.js'

export const de: MessageTable = {
  VALIDATION_FAILED: { title: 'Ungültige Anfrage', message: 'Einige der gesendeten Daten sind ungültig.' },
  FIELD_REQUIRED: { title: 'Fehlendes Feld', message: FIELD_TEMPLATES.de.FIELD_REQUIRED },
  FIELD_TYPE: { title: 'Falscher Feldtyp', message: FIELD_TEMPLATES.de.FIELD_TYPE },
  FIELD_TOO_SHORT: { title: 'Feld zu kurz', message: FIELD_TEMPLATES.de.FIELD_TOO_SHORT },
  FIELD_TOO_LONG: { title: 'Feld zu lang', message: FIELD_TEMPLATES.de.FIELD_TOO_LONG },
  FIELD_OUT_OF_RANGE: { title: 'Wert außerhalb des Bereichs', message: FIELD_TEMPLATES.de.FIELD_OUT_OF_RANGE },
  FIELD_INVALID: { title: 'Ungültiges Feld', message: FIELD_TEMPLATES.de.FIELD_INVALID },
  FIELD_READ_ONLY: { title: 'Schreibgeschütztes Feld', message: FIELD_TEMPLATES.de.FIELD_READ_ONLY },
  JSON_EXPECTED: { title: 'JSON-Objekt erwartet', message: 'Es wird ein JSON-Objekt erwartet.' },
  MALFORMED_JSON: { title: 'Fehlerhaftes JSON', message: 'Die gesendeten Daten sind kein gültiges JSON.' },
  FORBIDDEN_PROPERTY: { title: 'Unzulässige Eigenschaft', message: 'Die Daten enthalten eine unzulässige Eigenschaft.' },
  BODY_TOO_LARGE: { title: 'Anfrage zu groß', message: 'Die gesendeten Daten sind zu groß.' },
  UNSUPPORTED_MEDIA_TYPE: { title: 'Nicht unterstützter Medientyp', message: 'Die Daten müssen als JSON gesendet werden.' },
  UNSUPPORTED_CONTENT_ENCODING: { title: 'Nicht unterstützte Inhaltskodierung', message: 'Die Daten müssen unkomprimiert gesendet werden.' },
  NOT_ACCEPTABLE: { title: 'Nicht akzeptabel', message: 'Die Antwort kann in keinem von Ihnen akzeptierten Format geliefert werden.' },
  METHOD_NOT_ALLOWED: { title: 'Methode nicht erlaubt', message: 'Diese Aktion ist hier nicht möglich.' },
  ROUTE_NOT_FOUND: { title: 'Nicht gefunden', message: 'Unter dieser Adresse gibt es nichts.' },
  CLIENT_ERROR: { title: 'Anfrage abgelehnt', message: 'Die Anfrage konnte nicht verstanden werden.' },
  INVALID_ID: { title: 'Ungültige ID', message: 'Die ID ist ungültig.' },
  ID_MISMATCH: { title: 'ID stimmt nicht überein', message: 'Die ID in den Daten stimmt nicht mit der ID in der Adresse überein.' },
  INVALID_QUERY: { title: 'Ungültige Abfrage', message: 'Die Liste kann so nicht gefiltert oder sortiert werden ({field}).' },
  INVALID_CURSOR: { title: 'Ungültiger Cursor', message: 'Die Seitenposition ist ungültig; beginnen Sie wieder mit der ersten Seite.' },
  IDEMPOTENCY_KEY_INVALID: { title: 'Ungültiger Idempotenzschlüssel', message: 'Der Anfrageschlüssel ist ungültig.' },
  IDEMPOTENCY_KEY_REUSED: { title: 'Idempotenzschlüssel wiederverwendet', message: 'Dieser Anfrageschlüssel wurde bereits für eine andere Anfrage verwendet.' },
  PRECONDITION_FAILED: { title: 'Vorbedingung fehlgeschlagen', message: 'Der Datensatz wurde inzwischen geändert. Laden Sie ihn neu und versuchen Sie es erneut.' },
  RECORD_EXISTS: { title: 'Datensatz existiert', message: 'Ein Datensatz mit dieser ID existiert bereits.' },
  RECORD_NOT_CREATED: { title: 'Datensatz nicht angelegt', message: 'Die Daten konnten nicht angelegt werden.' },
  UNKNOWN_ERROR_CODE: { title: 'Unbekannter Fehlercode', message: 'Diesen Fehlercode gibt es nicht.' },
  STORE_UNAVAILABLE: { title: 'Dienst nicht verfügbar', message: 'Der Dienst ist vorübergehend nicht verfügbar. Bitte versuchen Sie es gleich noch einmal.' },
  WRITE_OUTCOME_UNKNOWN: { title: 'Ergebnis unbekannt', message: 'Wir konnten nicht bestätigen, ob Ihre Änderung gespeichert wurde. Bitte prüfen Sie das oder versuchen Sie es gleich noch einmal.' },
  INTERNAL: { title: 'Interner Serverfehler', message: 'Bei uns ist etwas schiefgelaufen.' },
  // Security and operations (issue 11)
  UNAUTHENTICATED: { title: 'Anmeldung erforderlich', message: 'Bitte melden Sie sich an: Ein gültiges Zugriffstoken wird benötigt.' },
  FORBIDDEN: { title: 'Nicht erlaubt', message: 'Ihr Zugriffstoken erlaubt diese Aktion nicht.' },
  RATE_LIMITED: { title: 'Zu viele Anfragen', message: 'Sie haben zu viele Anfragen gesendet. Bitte warten Sie einen Moment und versuchen Sie es erneut.' },
  OVERLOADED: { title: 'Server überlastet', message: 'Der Dienst ist gerade stark ausgelastet. Bitte versuchen Sie es gleich noch einmal.' },
  AUTH_UNAVAILABLE: { title: 'Anmeldung vorübergehend nicht möglich', message: 'Ihr Zugriff konnte gerade nicht geprüft werden. Bitte versuchen Sie es gleich noch einmal.' },
  HOST_NOT_ALLOWED: { title: 'Unbekannter Hostname', message: 'Dieser Server ist unter dem verwendeten Namen nicht erreichbar. Bitte verwenden Sie seine übliche Adresse.' },

  // Reliability (issue 10)
  FIELD_INVALID_TEXT: { title: 'Unzulässige Zeichen', message: FIELD_TEMPLATES.de.FIELD_INVALID_TEXT },
  NESTING_TOO_DEEP: { title: 'Daten zu tief verschachtelt', message: 'Die Daten sind zu tief verschachtelt.' },
  REQUEST_TIMEOUT: { title: 'Zeitüberschreitung der Anfrage', message: 'Die Daten sind nicht rechtzeitig angekommen. Bitte senden Sie sie erneut.' },
  PROCESSING_TIMEOUT: { title: 'Anfrage dauerte zu lange', message: 'Die Anfrage hat zu lange gedauert. Prüfen Sie, ob Ihre Änderung gespeichert wurde, bevor Sie es erneut versuchen.' }
}
