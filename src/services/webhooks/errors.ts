import type { ErrorDefinitions } from '../../http/errors/index.js'

/** The webhooks API's own error codes, with their texts. */
export const WEBHOOK_ERRORS = {
  WEBHOOK_NOT_FOUND: {
    status: 404, description: 'No webhook has this id (it may have been deleted). `GET /webhooks` lists them.',
    messages: {
      en: { title: 'Webhook not found', message: 'This webhook does not exist (any more).' },
      de: { title: 'Webhook nicht gefunden', message: 'Diesen Webhook gibt es nicht (mehr).' }
    }
  },
  WEBHOOK_DELIVERY_NOT_FOUND: {
    status: 404, description: 'The webhook has no delivery with this id: it never had one, or it was settled longer ago than deliveries are kept (7 days). `GET /webhooks/{id}/deliveries` lists them.',
    messages: {
      en: { title: 'Delivery not found', message: 'This webhook has no such delivery (any more).' },
      de: { title: 'Zustellung nicht gefunden', message: 'Dieser Webhook hat keine solche Zustellung (mehr).' }
    }
  },
  WEBHOOK_URL_REFUSED: {
    status: 400, description: 'The webhook\'s `url` is not one rqs delivers to: only http and https, without user name or password, to a host that resolves; and not to loopback, private, link-local, shared (CGNAT) or cloud-metadata addresses unless the server allows that host with `--webhook-allow-hosts`. `detail` says which rule refused it.',
    messages: {
      en: { title: 'Webhook address refused', message: 'Webhooks can only be sent to public http or https addresses.' },
      de: { title: 'Webhook-Adresse abgelehnt', message: 'Webhooks können nur an öffentliche http- oder https-Adressen gesendet werden.' }
    }
  },
  WEBHOOK_EVENTS_INVALID: {
    status: 400, description: 'An entry of `events` is not `<collection>.<kind>` for a collection this server serves, with kind `created`, `replaced`, `deleted` or `*` (`*` alone: every event). `detail` names it.',
    messages: {
      en: { title: 'Unknown event', message: 'The list of events names an event this server does not have.' },
      de: { title: 'Unbekanntes Ereignis', message: 'Die Liste der Ereignisse nennt ein Ereignis, das dieser Server nicht kennt.' }
    }
  },
  WEBHOOK_FILTER_INVALID: {
    status: 400, description: 'The webhook\'s `filter` cannot be applied: it is not an expression of the filter language on its collection\'s fields (`detail` points at the position, as for a list\'s `filter=`), or `events` do not name exactly one collection (`books.*`, `books.created`, …) for it to apply to.',
    messages: {
      en: { title: 'Invalid webhook filter', message: 'The webhook\'s filter is not a valid filter on the fields of the one collection its events name.' },
      de: { title: 'Ungültiger Webhook-Filter', message: 'Der Filter des Webhooks ist kein gültiger Filter auf den Feldern der einen Sammlung, die seine Ereignisse nennen.' }
    }
  }
} satisfies ErrorDefinitions

declare module '../../http/errors/catalogue.js' {
  interface ServiceErrorCodes {
    webhooks: typeof WEBHOOK_ERRORS
  }
}
