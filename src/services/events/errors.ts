import type { ErrorDefinitions } from '../../http/errors/index.js'

/** The change feed's own error codes, with their texts. */
export const FEED_ERRORS = {
  FEED_SERVICE_UNKNOWN: {
    status: 400, description: 'The `services` query parameter of the change feed names something other than the record services this server runs (`students`, `addresses`). Give one of them, or several separated by commas, or leave the parameter out for all. A record\'s history (`/events/history`) answers it for a `collection` the feed does not carry.',
    messages: {
      en: { title: 'Unknown service', message: 'The change feed can only follow students and addresses.' },
      de: { title: 'Unbekannter Dienst', message: 'Der Änderungs-Feed kann nur Studenten und Adressen verfolgen.' }
    }
  },
  FEED_TOO_MANY_STREAMS: {
    status: 429, description: 'This client (the principal of its access token, or its address without one) already holds as many change-feed streams as one client may (`--events-max-streams-per-client`, 8 by default; its GraphQL subscriptions count too). Close one, or retry after the seconds in `Retry-After`. The connection is closed.',
    messages: {
      en: { title: 'Too many open feeds', message: 'You already have as many live change feeds open as allowed. Close one (in another tab or window) and try again.' },
      de: { title: 'Zu viele offene Feeds', message: 'Sie haben bereits so viele Live-Änderungs-Feeds geöffnet wie erlaubt. Schließen Sie einen (in einem anderen Tab oder Fenster) und versuchen Sie es erneut.' }
    }
  },
  FEED_FULL: {
    status: 503, description: 'The server already serves as many change-feed streams as it serves at once (`--events-max-streams`, by default half of `--max-connections`; GraphQL subscriptions count too), so that other requests still get a connection. Retry after the seconds in `Retry-After`, or on another instance. The connection is closed.',
    messages: {
      en: { title: 'Change feed full', message: 'The change feed has no room for more followers right now. Please try again shortly.' },
      de: { title: 'Änderungs-Feed voll', message: 'Der Änderungs-Feed kann gerade niemanden mehr aufnehmen. Bitte versuchen Sie es gleich noch einmal.' }
    }
  }
} satisfies ErrorDefinitions

declare module '../../http/errors/catalogue.js' {
  interface ServiceErrorCodes {
    events: typeof FEED_ERRORS
  }
}
