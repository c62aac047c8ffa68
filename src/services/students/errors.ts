import type { ErrorDefinitions } from '../../http/errors/index.js'

/** The student records service's own error codes, with their texts. */
export const STUDENT_ERRORS = {
  STUDENT_NOT_FOUND: {
    status: 404, description: 'No student record has the id in the path.',
    messages: {
      en: { title: 'Student not found', message: 'The student does not exist.' },
      de: { title: 'Student nicht gefunden', message: 'Der Student existiert nicht.' }
    }
  }
} satisfies ErrorDefinitions

declare module '../../http/errors/catalogue.js' {
  interface ServiceErrorCodes {
    students: typeof STUDENT_ERRORS
  }
}
