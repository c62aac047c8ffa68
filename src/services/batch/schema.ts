import { BATCH_METHODS } from './verbs.js'

/** The body of POST /batch (its request count bounded by --batch-max-requests). */
export function batchBody (maxRequests: number): Record<string, unknown> {
  return {
    type: 'object',
    title: 'Batch',
    additionalProperties: false,
    required: ['requests'],
    properties: {
      requests: {
        type: 'array',
        minItems: 1,
        maxItems: maxRequests,
        description: `The requests, run in this order in one transaction (1 to ${maxRequests}).`,
        items: {
          type: 'object',
          title: 'BatchRequest',
          additionalProperties: false,
          required: ['method', 'url'],
          properties: {
            method: { type: 'string', enum: [...BATCH_METHODS], description: 'GET reads one record; POST creates; PUT replaces (or creates where the collection\'s PUT does); PATCH merges a patch (RFC 7396) into one record; DELETE removes.' },
            url: { type: 'string', minLength: 1, maxLength: 2048, description: 'A collection (`/books`, for POST) or one record (`/books/7`) of this server, as REST addresses it; students as `/v2/students`. No query string.' },
            headers: {
              type: 'object',
              additionalProperties: { type: 'string', maxLength: 1024 },
              description: 'If-Match and If-None-Match, as over REST (any other header is refused).'
            },
            body: { description: 'POST and PUT: the record\'s fields, as the collection\'s REST route takes them; PATCH: a merge patch (members sent replace the field, null removes an optional one).' }
          }
        }
      }
    },
    // Stores an address and deletes it again in one transaction: trying it leaves every record as it was.
    examples: [{
      requests: [
        { method: 'PUT', url: '/addresses/9007199254740991', body: { name: 'Ada Lovelace', city: 'London', postalCode: 'W1' } },
        { method: 'GET', url: '/addresses/9007199254740991' },
        { method: 'PATCH', url: '/addresses/9007199254740991', body: { city: 'Paris' } }
      ]
    }]
  }
}

const Response = {
  type: 'object',
  title: 'BatchResponse',
  required: ['status', 'headers'],
  properties: {
    status: { type: 'integer', description: 'The status the request alone would have been answered with (200, 201, 204, 304).' },
    headers: { type: 'object', additionalProperties: { type: 'string' }, description: 'The headers that describe the result, lower-case: `etag`, `location`, `replaced-record`.' },
    body: { type: 'object', additionalProperties: true, description: 'The record, as its collection\'s REST route answers it (none for 204 and 304).' }
  }
}

/** The answer of a batch that was applied: one response per request, in order. */
export const BatchAnswer = {
  type: 'object',
  title: 'BatchAnswer',
  required: ['responses'],
  properties: { responses: { type: 'array', items: Response } },
  examples: [{
    responses: [
      { status: 201, headers: { etag: '"Tx6kZ2Qx1bI0n9Xo"', location: '/addresses/9007199254740991' }, body: { id: 9007199254740991, name: 'Ada Lovelace', city: 'London', postalCode: 'W1' } },
      { status: 200, headers: { etag: '"Tx6kZ2Qx1bI0n9Xo"' }, body: { id: 9007199254740991, name: 'Ada Lovelace', city: 'London', postalCode: 'W1' } },
      { status: 200, headers: { etag: '"Zq81mB0xKe4Yh2Wc"' }, body: { id: 9007199254740991, name: 'Ada Lovelace', city: 'Paris', postalCode: 'W1' } }
    ]
  }]
}
