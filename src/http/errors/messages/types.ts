import type { CoreErrorCode, ErrorTexts } from '../catalogue.js'

export type { ErrorTexts }

/** Every core code must have texts in every language: the compiler checks it (a service's codes carry theirs). */
export type MessageTable = Record<CoreErrorCode, ErrorTexts>
