import type { ErrorDefinitions } from '../../http/errors/index.js'

/** The address book's own error codes, with their texts. */
export const ADDRESS_ERRORS = {
  ADDRESS_NOT_FOUND: {
    status: 404, description: 'No address has the id in the path.',
    messages: {
      en: { title: 'Address not found', message: 'The address does not exist.' },
      de: { title: 'Adresse nicht gefunden', message: 'Die Adresse existiert nicht.' }
    }
  }
} satisfies ErrorDefinitions

declare module '../../http/errors/catalogue.js' {
  interface ServiceErrorCodes {
    addresses: typeof ADDRESS_ERRORS
  }
}
