/**
 * What the web application's page tells the script (a JSON `data-config`
 * attribute, so no inline script is needed): where each collection is and
 * how to ask for the representation the app speaks. Shared by the server
 * (which writes it) and web/app/ (which reads it): types, and the one name
 * both need.
 */

/** The webhooks page's name under /app/ (the API's own path: no collection can be served there). */
export const WEBHOOKS_VIEW = 'webhooks'

export interface AppPageConfig {
  /** Student records, version 2 (plain records, problem details, ETags); absent when not mounted. */
  /**
   * Student records, version 2 (plain records, problem details, ETags); absent when not mounted.
   * `countIds`: the server gives ids by the spec's count rule, so a create can replace a record (the app warns first).
   */
  students?: { url: string, accept: string, countIds?: true }
  /** The address book collection; absent when not mounted. */
  addresses?: { url: string, accept: string }
  /** The change feed (Server-Sent Events), when the server has one (directory rel "events"). */
  events?: string
  /** The webhooks API (directory rel "webhooks"), when the server has webhooks: the app's webhooks page for admin tokens. */
  webhooks?: string
  /** The collections the server's user declared (`--collections`), each a view built from its schema. */
  collections?: AppCollection[]
  /** GET /collections (directory rel "collections"), when the server lists its collections: read again while the page is open, so collections created meanwhile get views, and the schema editor's. */
  collectionsListing?: string
}

/** A declared collection as the app needs it: where it is and its record's schema (flat, JSON Schema). */
export interface AppCollection {
  name: string
  url: string
  title?: string
  /** The declaration's words about the collection: shown under the view's title. */
  description?: string
  /** The field that names one of its records where a reference shows it (GET /collections' `label`); `id`: its id. */
  label?: string
  schema: {
    properties: Record<string, AppProperty>
    required?: string[]
  }
  /** The fields its list may be sorted by (the server's query model; id included). Absent: id and the required fields, the server's rule. */
  sort?: string[]
}

/** A declared property as the app reads it: its kind, label, and the limits its messages state. */
export interface AppProperty {
  /** One JSON type, or one and "null" (a field that takes null). */
  type: string | string[]
  format?: string
  title?: string
  description?: string
  /** How a valid value looks, in words: said when a value breaks the pattern (else the description). */
  'x-hint'?: string
  /** A reference: the collection whose record's id the field holds (shown by that record's label, linked to its view). */
  'x-references'?: string
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  exclusiveMaximum?: number
  maxLength?: number
  pattern?: string
  /** The values it may hold (text or integers; null where it takes null). */
  enum?: Array<string | number | null>
  /** What a create that leaves it out stores: the form starts with it. */
  default?: unknown
  /** An automatic timestamp (issue 29): set by the server, shown but never sent. */
  'x-auto'?: string
}
