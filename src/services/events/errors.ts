import type { ErrorDefinitions } from '../../http/errors/index.js'

/** The change feed's own error codes, with their texts. */
export const FEED_ERRORS = {
  FEED_SERVICE_UNKNOWN: {
    status: 400, description: 'The `services` query parameter of the change feed names something other than the record services this server runs (`students`, `addresses`). Give one of them, or several separated by commas, or leave the parameter out for all.',
    messages: {
      en: { title: 'Unknown service', message: 'The change feed can only follow students and addresses.' },
      de: { title: 'Unbekannter Dienst', message: 'Der Änderungs-Feed kann nur Studenten und Adressen verfolgen.' }
    }
  }
} satisfies ErrorDefinitions

declare module '../../http/errors/catalogue.js' {
  interface ServiceErrorCodes {
    events: typeof FEED_ERRORS
  }
}
