import type { FastifyInstance } from 'fastify'
import { CATALOGUE, type CoreErrorCode, type ErrorCode, type ErrorDefinition, type ErrorDefinitions } from './catalogue.js'
import { LANGUAGES, type Language } from './language.js'
import { MESSAGES, type ErrorTexts } from './messages/index.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The codes this server answers with: the core's and its services' (set by buildServer). */
    errorCatalogue?: ErrorCatalogue
  }
}

/**
 * One server's error catalogue: the core codes (./catalogue.ts with the
 * texts of ./messages/) and those its services declare. Renderers, the
 * served catalogue (`GET /errors`), the API description and docs/errors.md
 * read codes, statuses and texts from it. Each server builds its own, so two
 * servers in one process never see each other's services' codes.
 */
export class ErrorCatalogue {
  /** Every code: the core's first, then each service's, in the order given. */
  readonly codes: readonly ErrorCode[]
  readonly #definitions: ReadonlyMap<string, ErrorDefinition>

  constructor (services: ReadonlyArray<ErrorDefinitions | undefined> = []) {
    const definitions = new Map<string, ErrorDefinition>(CORE_CODES.map((code) => [code, coreDefinition(code)]))
    for (const declared of services) {
      for (const [code, definition] of Object.entries(declared ?? {})) {
        if (definitions.has(code)) throw new Error(`error code ${code} is declared twice`)
        checkDefinition(code, definition)
        definitions.set(code, definition)
      }
    }
    this.#definitions = definitions
    this.codes = [...definitions.keys()].filter((code) => this.has(code))
  }

  has (code: string): code is ErrorCode {
    return this.#definitions.has(code)
  }

  /** A code's status, description and texts; a code this server does not have is a bug (classify turns it into INTERNAL first). */
  entry (code: ErrorCode): ErrorDefinition {
    const definition = this.#definitions.get(code)
    if (definition === undefined) throw new Error(`error code ${code} is not in this server's catalogue (is its service switched off?)`)
    return definition
  }

  status (code: ErrorCode): number {
    return this.entry(code).status
  }

  texts (language: Language, code: ErrorCode): ErrorTexts {
    return this.entry(code).messages[language]
  }
}

const CORE_CODES = Object.keys(CATALOGUE).filter((code): code is CoreErrorCode => Object.hasOwn(CATALOGUE, code))

function coreDefinition (code: CoreErrorCode): ErrorDefinition {
  const entry: { status: number, scope?: 'rest' | 'graphql', description: string } = CATALOGUE[code]
  return { ...entry, messages: { en: MESSAGES.en[code], de: MESSAGES.de[code] } }
}

/** What the types cannot say about a service's code: its form, its status, texts that are there. */
function checkDefinition (code: string, definition: ErrorDefinition): void {
  if (!/^[A-Za-z0-9_-]+$/.test(code) || /^\d+$/.test(code)) throw new Error(`error code ${code}: letters, digits, dash and underscore only, and not an HTTP status`)
  if (!Number.isInteger(definition.status) || definition.status < 400 || definition.status > 599) throw new Error(`error code ${code}: status ${definition.status} is no error status`)
  for (const language of LANGUAGES) {
    const texts = definition.messages[language]
    if (texts.title === '' || texts.message === '') throw new Error(`error code ${code}: no ${language} title or message`)
  }
}

/** Only the core codes: for the error pipeline used outside buildServer (a plugin of another Fastify app). */
const CORE_CATALOGUE = new ErrorCatalogue()

/** The catalogue of the server `app` belongs to. */
export function catalogueOf (app: FastifyInstance): ErrorCatalogue {
  return app.errorCatalogue ?? CORE_CATALOGUE
}
