/**
 * The webhooks API as the app's webhooks page uses it (docs/webhooks.md):
 * the shapes it answers and the texts of the page.
 */
import { wordsOf } from './words.js'

export interface Webhook {
  id: string
  url: string
  events: string[]
  description: string
  filter: string | null
  enabled: boolean
  disabledReason: string | null
  previousSecretValidUntil: string | null
  createdAt: string
  updatedAt: string
}

export interface Delivery {
  id: string
  event: string
  seq: number
  state: 'pending' | 'delivered' | 'failed'
  attempts: number
  createdAt: string
  lastAttemptAt: string | null
  status: number | null
  error: string | null
  durationMs: number | null
  nextAttemptAt: string | null
}

/** The webhooks of a list answer (`{webhooks: [...]}`); anything else: none. */
export function webhooksOf (body: unknown): Webhook[] {
  const list = (body as { webhooks?: unknown } | undefined)?.webhooks
  return Array.isArray(list) ? list as Webhook[] : []
}

export function deliveriesOf (body: unknown): Delivery[] {
  const list = (body as { deliveries?: unknown } | undefined)?.deliveries
  return Array.isArray(list) ? list as Delivery[] : []
}

/** "books.*, authors.created" or one a line → the API's list (empty parts dropped). */
export function eventList (text: string): string[] {
  return text.split(/[,\n]/).map((part) => part.trim()).filter((part) => part !== '')
}

/**
 * Whether the token in use may manage webhooks: the list answers it. A plain
 * request, so a refusal neither asks for a token nor counts as an error of the page.
 */
export async function mayManageWebhooks (url: string, token: string | undefined): Promise<boolean> {
  try {
    const res = await fetch(url, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` }, cache: 'no-store' })
    await res.body?.cancel()
    return res.ok
  } catch {
    return false
  }
}

export const webhookWords = wordsOf({
  en: {
    webhooks: 'Webhooks',
    intro: 'Every change of the chosen collections is POSTed, signed, to each webhook\'s URL and retried until the receiver answers 2xx.',
    none: 'No webhooks yet.',
    newWebhook: 'New webhook',
    url: 'URL',
    events: 'Events',
    eventsHint: 'Separated by commas: books.*, authors.created; * alone is every event.',
    filter: 'Filter',
    filterHint: 'Optional: only changes of matching records, e.g. year > 2000 (events must then name one collection).',
    description: 'Description',
    create: 'Create webhook',
    created: 'Webhook {url} was created.',
    secret: 'Its signing secret, shown only now: {secret}',
    secretRotated: 'A new signing secret for {url}, shown only now: {secret}. The old one keeps signing until {until}.',
    copyNow: 'Copy it to the receiver now; it cannot be shown again.',
    enabled: 'active',
    disabled: 'disabled',
    disabledBecause: 'disabled: {reason}',
    state: 'State',
    actions: 'Actions',
    ping: 'Ping',
    pinged: 'Ping to {url}: {result}.',
    pingStatus: 'the receiver answered {status} in {ms} ms',
    pingFailed: 'no answer ({error})',
    rotate: 'Rotate secret',
    enable: 'Enable',
    disable: 'Disable',
    remove: 'Delete',
    removed: 'Webhook {url} was deleted.',
    confirmRemove: 'Delete the webhook {url} and its deliveries?',
    showDeliveries: 'Deliveries',
    hideDeliveries: 'Hide deliveries',
    deliveriesOf: 'Deliveries of {url}',
    noDeliveries: 'No deliveries yet.',
    event: 'Event',
    attempts: 'Attempts',
    status: 'Status',
    duration: 'Duration',
    lastAttempt: 'Last attempt',
    nextAttempt: 'Next attempt',
    retry: 'Retry',
    retried: 'Delivery {id} is attempted again now.',
    pending: 'pending',
    delivered: 'delivered',
    failed: 'failed',
    refresh: 'Refresh'
  },
  de: {
    webhooks: 'Webhooks',
    intro: 'Jede Änderung der gewählten Sammlungen wird signiert an die URL jedes Webhooks gesendet (POST) und wiederholt, bis der Empfänger mit 2xx antwortet.',
    none: 'Noch keine Webhooks.',
    newWebhook: 'Neuer Webhook',
    url: 'URL',
    events: 'Ereignisse',
    eventsHint: 'Durch Kommas getrennt: books.*, authors.created; * allein ist jedes Ereignis.',
    filter: 'Filter',
    filterHint: 'Optional: nur Änderungen passender Einträge, z. B. year > 2000 (die Ereignisse müssen dann eine Sammlung nennen).',
    description: 'Beschreibung',
    create: 'Webhook anlegen',
    created: 'Der Webhook {url} wurde angelegt.',
    secret: 'Sein Signaturschlüssel, nur jetzt angezeigt: {secret}',
    secretRotated: 'Ein neuer Signaturschlüssel für {url}, nur jetzt angezeigt: {secret}. Der alte signiert weiter bis {until}.',
    copyNow: 'Übertragen Sie ihn jetzt zum Empfänger; er kann nicht erneut angezeigt werden.',
    enabled: 'aktiv',
    disabled: 'abgeschaltet',
    disabledBecause: 'abgeschaltet: {reason}',
    state: 'Zustand',
    actions: 'Aktionen',
    ping: 'Ping',
    pinged: 'Ping an {url}: {result}.',
    pingStatus: 'der Empfänger antwortete {status} in {ms} ms',
    pingFailed: 'keine Antwort ({error})',
    rotate: 'Neuer Schlüssel',
    enable: 'Einschalten',
    disable: 'Abschalten',
    remove: 'Löschen',
    removed: 'Der Webhook {url} wurde gelöscht.',
    confirmRemove: 'Den Webhook {url} und seine Zustellungen löschen?',
    showDeliveries: 'Zustellungen',
    hideDeliveries: 'Zustellungen ausblenden',
    deliveriesOf: 'Zustellungen an {url}',
    noDeliveries: 'Noch keine Zustellungen.',
    event: 'Ereignis',
    attempts: 'Versuche',
    status: 'Status',
    duration: 'Dauer',
    lastAttempt: 'Letzter Versuch',
    nextAttempt: 'Nächster Versuch',
    retry: 'Erneut senden',
    retried: 'Die Zustellung {id} wird jetzt erneut versucht.',
    pending: 'ausstehend',
    delivered: 'zugestellt',
    failed: 'fehlgeschlagen',
    refresh: 'Aktualisieren'
  }
})
