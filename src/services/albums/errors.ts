import type { ErrorDefinitions } from '../../http/errors/index.js'

/**
 * The album query service's own error codes (`extensions.code` of each
 * GraphQL error), with their texts. The core codes METHOD_NOT_ALLOWED,
 * UNSUPPORTED_MEDIA_TYPE, NOT_ACCEPTABLE and NESTING_TOO_DEEP are used there too.
 */
export const ALBUM_ERRORS = {
  GRAPHQL_PARSE_FAILED: {
    scope: 'graphql', status: 400, description: 'The GraphQL document has a syntax error. `message` and `locations` say where.',
    messages: {
      en: { title: 'Syntax error in the query', message: 'The query has a syntax error.' },
      de: { title: 'Syntaxfehler in der Abfrage', message: 'Die Abfrage enthält einen Syntaxfehler.' }
    }
  },
  GRAPHQL_VALIDATION_FAILED: {
    scope: 'graphql', status: 400, description: 'The document does not fit the schema (an unknown field or argument, a wrong type). `message` names it.',
    messages: {
      en: { title: 'Invalid query', message: 'The query does not fit the schema.' },
      de: { title: 'Ungültige Abfrage', message: 'Die Abfrage passt nicht zum Schema.' }
    }
  },
  QUERY_TOO_DEEP: {
    scope: 'graphql', status: 400, description: 'The selection nesting is deeper than `--graphql-max-depth` (20 by default).',
    messages: {
      en: { title: 'Query too deep', message: 'The query is nested too deeply.' },
      de: { title: 'Abfrage zu tief', message: 'Die Abfrage ist zu tief verschachtelt.' }
    }
  },
  QUERY_TOO_COMPLEX: {
    scope: 'graphql', status: 400, description: 'The document selects more fields than `--graphql-max-fields` (500 by default), fragments counted once per use.',
    messages: {
      en: { title: 'Query too complex', message: 'The query selects too many fields.' },
      de: { title: 'Abfrage zu umfangreich', message: 'Die Abfrage wählt zu viele Felder aus.' }
    }
  },
  QUERY_TOO_COSTLY: {
    scope: 'graphql', status: 400, description: 'The document costs more than `--graphql-max-cost` (100 000 by default), weighed before it runs: each list costs its `first` (default 50) times the fields of one record, `totalCount` and a text search (`filter: {q}`) 10 000 each (a scan), every other field 1. `message` and `extensions` give the cost and the budget; ask for fewer records, fields, counts or searches, or split the query.',
    messages: {
      en: { title: 'Query too costly', message: 'The query would cost more than the server allows for one request.' },
      de: { title: 'Abfrage zu aufwendig', message: 'Die Abfrage wäre aufwendiger, als der Server für eine Anfrage erlaubt.' }
    }
  },
  TOO_MANY_ALIASES: {
    scope: 'graphql', status: 400, description: 'The document uses more aliases than `--graphql-max-aliases` (30 by default).',
    messages: {
      en: { title: 'Too many aliases', message: 'The query uses too many aliases.' },
      de: { title: 'Zu viele Aliase', message: 'Die Abfrage verwendet zu viele Aliase.' }
    }
  },
  QUERY_TOO_LARGE: {
    scope: 'graphql', status: 400, description: 'The document text is larger than `--graphql-max-document-size` (16 KiB by default).',
    messages: {
      en: { title: 'Query too large', message: 'The query text is too long.' },
      de: { title: 'Abfrage zu groß', message: 'Der Abfragetext ist zu lang.' }
    }
  },
  INTROSPECTION_DISABLED: {
    scope: 'graphql', status: 400, description: '`__schema` and `__type` queries are switched off on this server (`--no-graphql-introspection`).',
    messages: {
      en: { title: 'Introspection disabled', message: 'Schema introspection is switched off on this server.' },
      de: { title: 'Introspektion abgeschaltet', message: 'Die Schema-Introspektion ist auf diesem Server abgeschaltet.' }
    }
  },
  OPERATION_NOT_SUPPORTED: {
    scope: 'graphql', status: 400, description: 'The operation cannot run where it was sent: a subscription over `{base}/graphql` (subscriptions run over SSE at `{base}/graphql/stream`), or a query or mutation over the stream.',
    messages: {
      en: { title: 'Operation not supported', message: 'This operation cannot be run here.' },
      de: { title: 'Operation nicht unterstützt', message: 'Diese Operation kann hier nicht ausgeführt werden.' }
    }
  },
  BAD_REQUEST: {
    scope: 'graphql', status: 400, description: 'The GraphQL-over-HTTP request is malformed: no `query`, a body that is not JSON, several operations without `operationName`, an unknown `operationName`.',
    messages: {
      en: { title: 'Bad GraphQL request', message: 'The GraphQL request is malformed.' },
      de: { title: 'Fehlerhafte GraphQL-Anfrage', message: 'Die GraphQL-Anfrage ist fehlerhaft.' }
    }
  },
  BAD_USER_INPUT: {
    scope: 'graphql', status: 400, description: 'The variables do not fit the types the operation declares.',
    messages: {
      en: { title: 'Invalid variables', message: 'The query variables are invalid.' },
      de: { title: 'Ungültige Variablen', message: 'Die Variablen der Abfrage sind ungültig.' }
    }
  },
  PAYLOAD_TOO_LARGE: {
    scope: 'graphql', status: 413, description: 'The GraphQL request body is larger than the server accepts (`--body-limit`).',
    messages: {
      en: { title: 'Request too large', message: 'The request is too large.' },
      de: { title: 'Anfrage zu groß', message: 'Die Anfrage ist zu groß.' }
    }
  },
  TOO_MANY_CLIENT_SUBSCRIPTIONS: {
    scope: 'graphql', status: 429, description: 'This client (the principal of its access token, or its address without one) already holds as many long-lived streams as one client may: GraphQL subscriptions (`{base}/graphql/stream`) and change-feed streams (`/events`) count together (`--events-max-streams-per-client`, 8 by default). Close one, or retry after the seconds in `Retry-After`. Refused before the stream starts; the connection is closed.',
    messages: {
      en: { title: 'Too many subscriptions', message: 'You already have as many live subscriptions and change feeds open as allowed. Close one and try again.' },
      de: { title: 'Zu viele Abonnements', message: 'Sie haben bereits so viele Live-Abonnements und Änderungs-Feeds geöffnet wie erlaubt. Schließen Sie eines und versuchen Sie es erneut.' }
    }
  },
  TOO_MANY_SUBSCRIPTIONS: {
    scope: 'graphql', status: 503, description: 'The server already serves as many long-lived streams as it serves at once: GraphQL subscriptions (`{base}/graphql/stream`, at most 1 000) and change-feed streams (`/events`) together (`--events-max-streams`, by default half of `--max-connections`). Retry after the seconds in `Retry-After`. Refused before the stream starts; the connection is closed.',
    messages: {
      en: { title: 'Too many subscriptions', message: 'The server is serving as many subscriptions as it can. Try again later.' },
      de: { title: 'Zu viele Abonnements', message: 'Der Server bedient bereits so viele Abonnements wie möglich. Versuchen Sie es später erneut.' }
    }
  },
  INTERNAL_SERVER_ERROR: {
    scope: 'graphql', status: 500, description: 'An unexpected fault while answering a GraphQL request. Report the request id (`X-Request-Id`) to the operators.',
    messages: {
      en: { title: 'Internal error', message: 'Something went wrong on our side.' },
      de: { title: 'Interner Fehler', message: 'Auf unserer Seite ist etwas schiefgegangen.' }
    }
  }
} satisfies ErrorDefinitions

declare module '../../http/errors/catalogue.js' {
  interface ServiceErrorCodes {
    albums: typeof ALBUM_ERRORS
  }
}
