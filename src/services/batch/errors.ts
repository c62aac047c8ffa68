import type { ErrorDefinitions } from '../../http/errors/index.js'

/** The codes of POST /batch; `{field}` is the request's place in the batch, `requests/2`. */
export const BATCH_ERRORS = {
  BATCH_REQUEST_INVALID: {
    status: 400, description: 'A request of the batch cannot run in a batch: its `url` names no record collection this server serves (or students v1, or a list), its `method` does not fit the URL, or it sends a header other than If-Match and If-None-Match. `errors[].field` names it (`requests/2/url`). Nothing was applied.',
    messages: {
      en: { title: 'Request not possible in a batch', message: 'The request {field} cannot be part of a batch.' },
      de: { title: 'Anfrage im Stapel nicht möglich', message: 'Die Anfrage {field} kann nicht Teil eines Stapels sein.' }
    }
  },
  BATCH_FAILED: {
    status: 422, description: 'A request of the batch failed (its record is missing, its precondition does not hold, its body is invalid, …), so nothing of the batch was applied. `index` names the request (from 0), `failed` holds its own problem (status, code, detail) as it would have been answered alone.',
    messages: {
      en: { title: 'Batch failed', message: 'The request {field} of the batch failed, so none of its requests was applied.' },
      de: { title: 'Stapel fehlgeschlagen', message: 'Die Anfrage {field} des Stapels ist fehlgeschlagen, daher wurde keine seiner Anfragen ausgeführt.' }
    }
  }
} satisfies ErrorDefinitions

declare module '../../http/errors/catalogue.js' {
  interface ServiceErrorCodes {
    batch: typeof BATCH_ERRORS
  }
}
