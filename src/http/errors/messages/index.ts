import type { Language } from '../language.js'
import type { MessageTable } from './types.js'
import { en } from './en.js'
import { de } from './de.js'

export type { ErrorTexts, MessageTable } from './types.js'

/** The texts per supported language; keys are exactly LANGUAGES in ../language.ts. */
export const MESSAGES: Record<Language, MessageTable> = { en, de }
