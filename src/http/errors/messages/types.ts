import type { CoreErrorCode } from '../catalogue.js'

/**
 * User-facing texts of one error code in one language. `{field}` in a
 * message is replaced by the name of the field concerned.
 */
export interface ErrorTexts {
  /** Short summary of the problem type (the problem's `title`). */
  title: string
  /** A sentence a user interface can show (each entry's `message`). */
  message: string
}

/** Every core code must have texts in every language: the compiler checks it (a service's codes carry theirs). */
export type MessageTable = Record<CoreErrorCode, ErrorTexts>
