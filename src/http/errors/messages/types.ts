import type { ErrorCode } from '../catalogue.js'

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

/** Every code must have texts in every language: the compiler checks it. */
export type MessageTable = Record<ErrorCode, ErrorTexts>
