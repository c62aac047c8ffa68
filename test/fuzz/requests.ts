import fc from 'fast-check'
import { errorCatalogue, SERVICES } from '../../src/services/index.js'

/** Every code of a server running every built-in service. */
const ERROR_CODES = errorCatalogue(SERVICES).codes

/**
 * Hostile HTTP requests for every route of the three services (issue 10):
 * wrong types, deep nesting, `__proto__` / `constructor` keys, duplicate
 * keys, lone surrogates, NUL, huge numbers, invalid UTF-8, odd content types
 * and Accept values, traversal in the static folders, and GraphQL documents
 * from valid to token soup. Bodies are built as JSON *text*, so duplicate keys
 * and number literals such as 1e400 or 9223372036854775808 reach the server
 * exactly as written.
 */
export interface FuzzRequest {
  method: string
  /** Path and query as sent on the wire (bytes 0x21–0xff; latin-1 bytes are not UTF-8 on purpose). */
  path: string
  headers: Record<string, string>
  body?: Buffer
}

// ---------------------------------------------------------------- text and JSON

/** Strings every layer should survive: NUL, lone surrogates, limits ±1, injections, prototype names. */
const NASTY_STRINGS = [
  '', ' ', 'A\ud800', '\udc00B', 'x\ud83dy', 'a\u0000b', '\u0000', '😀', 'e\u0301', '\ufeff', '\uffff', '\ufffd',
  '\u202e', 'tab\tnl\n', '\u0001\u001f\u007f', '"', '\\', '\\u0000', "Robert'); DROP TABLE rqs_students;--",
  '<script>alert(1)</script>', '${7*7}', '{{7*7}}', '%s%n%x', '../../etc/passwd', '__proto__', 'constructor',
  'prototype', 'toString', 'x'.repeat(199), 'x'.repeat(200), 'x'.repeat(201), '😀'.repeat(200), '😀'.repeat(201),
  'y'.repeat(5000), 'null', 'true', '0', '-1', 'NaN', '10115', ' 10115 '
]

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 4 },
  { arbitrary: fc.string({ maxLength: 30 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 30 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }), weight: 1 }
)

/** Number literals as JSON text, valid and not: beyond 2^53 and 2^63, overflowing doubles, negative zero... */
const NUMBER_LITERALS = [
  '0', '-0', '1', '-1', '36', '2147483647', '2147483648', '-2147483649', '9007199254740991', '9007199254740992',
  '9007199254740993', '9223372036854775807', '9223372036854775808', '18446744073709551616', '1e308', '1e309',
  '-1e309', '1e-400', '0.1', '1.0', '1.5', '1e2', '1E400', '123456789012345678901234567890123456789',
  '01', '+1', '0x10', 'NaN', 'Infinity', '-', '1e', '.5'
]

export const numberLiteral: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NUMBER_LITERALS), weight: 3 },
  { arbitrary: fc.integer().map(String), weight: 1 },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)), weight: 1 },
  { arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String), weight: 1 }
)

/** A JSON string literal; sometimes one JSON itself forbids (raw control characters, bad escapes). */
export const stringLiteral: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: nastyString.map((s) => JSON.stringify(s)), weight: 8 },
  { arbitrary: fc.constantFrom('"\\ud800"', '"\\udfff\\ud800"', '"\\u0000"', '"a\u0001b"', '"\\x41"', '"\\u12"', '"unterminated', '"\\"'), weight: 1 }
)

const KEYS = [
  'firstName', 'lastName', 'age', 'id', 'name', 'city', 'postalCode', 'query', 'variables', 'operationName',
  'extensions', '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', ''
]
export const keyName: fc.Arbitrary<string> = fc.oneof({ arbitrary: fc.constantFrom(...KEYS), weight: 4 }, { arbitrary: nastyString, weight: 1 })

/** Any JSON-ish text, nested a little; objects may repeat keys. */
export const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string, array: string, object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberLiteral, stringLiteral, fc.constantFrom('true', 'false', 'null'), tie('array'), tie('object')
  ),
  array: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
  object: fc.array(fc.tuple(keyName, tie('value')), { maxLength: 5 })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`)
})).value

/** A member value: mostly valid for its field, otherwise anything. */
function fieldValue (valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof({ arbitrary: valid, weight: 8 }, { arbitrary: jsonText, weight: 1 }, { arbitrary: stringLiteral, weight: 1 }, { arbitrary: numberLiteral, weight: 1 })
}

/** Valid names, several of which a careless encoder or driver would change. */
const validName = fc.constantFrom('Ada', 'Lovelace', 'Zoë', '😀', 'Grace Hopper', 'e\u0301', '\ufeffBOM', 'tab\tand\nline', '\uffff', '中文', ' padded ', 'x'.repeat(200))
  .map((s) => JSON.stringify(s))
const validAge = fc.constantFrom('0', '36', '2147483647')
const validId = fc.constantFrom('3', '77', '1000', '9223372036854775000')

/** An object close to a record, so validation and the stores are reached, with extra or repeated members. */
function recordText (fields: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const members = Object.entries(fields).map(([key, value]) => fc.option(value.map((v) => `${JSON.stringify(key)}:${v}`), { freq: 6 }))
  const extras = fc.oneof(
    { arbitrary: fc.constant([]), weight: 2 },
    { arbitrary: fc.array(fc.tuple(keyName, jsonText).map(([k, v]) => `${JSON.stringify(k)}:${v}`), { minLength: 1, maxLength: 2 }), weight: 1 }
  )
  return fc.tuple(fc.tuple(...members), extras, fc.boolean()).map(([present, more, extrasFirst]) => {
    const own = present.filter((m): m is string => m !== null)
    return `{${(extrasFirst ? [...more, ...own] : [...own, ...more]).join(',')}}`
  })
}

export const studentBody = recordText({ id: fieldValue(validId), firstName: fieldValue(validName), lastName: fieldValue(validName), age: fieldValue(validAge) })
export const addressBody = recordText({ id: fieldValue(validId), name: fieldValue(validName), city: fieldValue(fc.constantFrom('"Berlin"', '"Kiel"', '"Zürich"')), postalCode: fieldValue(fc.constantFrom('"10115"', '""', '"SW1A 1AA"')) })

/** Nesting of arrays or objects, valid or cut short, around the limit and far past it. */
export const deepJson: fc.Arbitrary<string> = fc.tuple(fc.constantFrom(10, 63, 64, 65, 200, 5000, 50_000), fc.constantFrom('[', '{"a":'), fc.boolean(), fc.boolean())
  .map(([depth, open, closed, wrapped]) => {
    const close = open === '[' ? ']' : '}'
    const nest = open.repeat(depth) + '1' + (closed ? close.repeat(depth) : '')
    return wrapped ? `{"firstName":"a","lastName":"b","age":1,"name":"n","city":"c","postalCode":"p","id":9007199254740993,"x":${nest}}` : nest
  })

/** Bytes that are not UTF-8, or not what they claim to be. */
export const rawBytes: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom(
    Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), // UTF-16 BOM, then {}
    Buffer.from('\ufeff{"firstName":"a","lastName":"b","age":1}'), // UTF-8 BOM
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xae, 0x22, 0x7d]), // overlong "."
    Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), // CESU surrogate
    Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0x80, 0x80, 0xbf, 0x22, 0x7d]), // stray continuation bytes
    Buffer.from('{"firstName":"a"}{"lastName":"b"}'), // two documents
    Buffer.from('{"firstName":"a",}'), Buffer.from('[1,2,]'), Buffer.from('{'), Buffer.from('nul'), Buffer.from(''),
    Buffer.from('{"a":1} trailing'), Buffer.from('\u0000'), Buffer.from('firstName=a&lastName=b&age=1')
  ),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes))
)

// ---------------------------------------------------------------- GraphQL

const GRAPHQL_TOKENS = [
  '{', '}', '(', ')', '[', ']', ':', '$', '@', '...', '!', '=', '|', '&', ',', 'albums', 'title', 'artist', 'recordNo',
  'titleFilter', '__typename', '__schema', '__type', 'query', 'mutation', 'subscription', 'fragment', 'on', 'Album',
  'Query', 'String', 'Int', '"Sounds"', '"""block\\"""still"""', '"\\u0000"', '"\\ud800"', '123', '-1.5e10', 'true', 'null',
  '#comment\n', '\u0000', '\ud800', '😀', 'include', 'skip', 'if', 'v', 'F', '\n'
]

const VALID_DOCUMENTS = [
  '{ albums { title artist recordNo } }',
  'query ($f: String) { albums(titleFilter: $f) { title } }',
  'query Q { albums { ...F } } fragment F on Album { title artist }',
  '{ a: albums { t: title } b: albums(titleFilter: "Pet") { recordNo } }',
  '{ albums @include(if: true) { title @skip(if: false) } }',
  '{ __typename albums { __typename } }',
  '{ __schema { types { name fields { name } } } }',
  'query A { albums { title } } query B { albums { artist } }',
  'mutation { albums { title } }',
  'subscription { albums { title } }',
  'fragment A on Album { ...B } fragment B on Album { ...A } { albums { ...A } }',
  '{ albums { title(x: 1) } }',
  '{ albums(titleFilter: 5) { title } }',
  '{ albums { nope } }'
]

/** A bracket nest in literal, selection, directive or type position. */
const nestedDocument = fc.tuple(fc.constantFrom(5, 60, 127, 128, 129, 300, 600, 2000, 5000), fc.constantFrom('list', 'object', 'selection', 'fragment', 'directive', 'type'))
  .map(([n, where]) => {
    switch (where) {
      case 'list': return `{ albums(titleFilter: ${'['.repeat(n)}"x"${']'.repeat(n)}) { title } }`
      case 'object': return `{ albums(titleFilter: ${'{a:'.repeat(n)}1${'}'.repeat(n)}) { title } }`
      case 'selection': return `{ ${'albums { '.repeat(n)}title${' }'.repeat(n)} }`
      case 'fragment': return `{ albums { ${'...on Album{'.repeat(n)}title${'}'.repeat(n)} } }`
      case 'directive': return `{ albums @include(if: ${'['.repeat(n)}true${']'.repeat(n)}) { title } }`
      default: return `query ($v: ${'['.repeat(n)}String${']'.repeat(n)}) { albums { title } }`
    }
  })

export const graphqlDocument: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...VALID_DOCUMENTS), weight: 3 },
  { arbitrary: fc.array(fc.constantFrom(...GRAPHQL_TOKENS), { maxLength: 40 }).map((t) => t.join(' ')), weight: 3 },
  { arbitrary: nestedDocument, weight: 2 },
  { arbitrary: fc.tuple(fc.constantFrom('title ', 'a: title ', '...F '), fc.constantFrom(100, 600, 3000)).map(([s, n]) => `{ albums { ${s.repeat(n)} } } fragment F on Album { title }`), weight: 1 },
  { arbitrary: nastyString, weight: 1 }
)

/** A GraphQL POST body: usually {query, variables, operationName}, sometimes anything. */
export const graphqlBody: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.tuple(graphqlDocument, fc.option(jsonText), fc.option(fc.oneof(nastyString.map((s) => JSON.stringify(s)), fc.constantFrom('"Q"', '"A"', 'null', '5')))).map(([query, variables, op]) => {
    const members = [`"query":${JSON.stringify(query)}`]
    if (variables !== null) members.push(`"variables":${variables}`)
    if (op !== null) members.push(`"operationName":${op}`)
    return `{${members.join(',')}}`
  }),
  weight: 6 },
  { arbitrary: fc.tuple(fc.constantFrom('"query"', '"variables"', '"__proto__"'), jsonText).map(([k, v]) => `{${k}:${v},"query":"{ albums { title } }"}`), weight: 1 },
  { arbitrary: jsonText, weight: 1 }
)

// ---------------------------------------------------------------- paths and headers

const ID_SEGMENTS = [
  '0', '1', '2', '3', '77', '-1', '1.5', '00', '007', '+1', '1e3', '0x10', ' 1', '%201', '%31', '9007199254740991',
  '9007199254740993', '9223372036854775807', '9223372036854775808', '99999999999999999999999', 'abc', 'null',
  'undefined', 'NaN', 'Infinity', '%00', '%', '%zz', '%E0%A4%A', '%ED%A0%80', '%C0%AE', '%F0%9F%98%80', 'x'.repeat(300),
  'constructor', '__proto__', 'prototype', 'hasOwnProperty', '..', '.', '%2e%2e', ';', 'a;b=c', '%3F', '%23'
]
const idSegment = fc.oneof({ arbitrary: fc.constantFrom(...ID_SEGMENTS), weight: 4 }, { arbitrary: nastyString.map(encodePathPart), weight: 1 })

/** Ways to climb out of a folder, raw and encoded, and what to look for up there. */
const CLIMB = ['..', '%2e%2e', '%2E%2e', '.%2e', '%252e%252e', '..%2f..', '..%5c..', '..\\..', '....//', '%c0%ae%c0%ae', '..;', '%2e%2e%2f', '..%00']
const TARGETS = ['etc/passwd', 'package.json', 'src/server.ts', '.git', '.git/config', 'tsconfig.json', '.env', 'docs/../package.json', '%2fetc%2fpasswd', '/etc/passwd', 'index.html', 'style.css', 'errors.md', 'decisions.md', 'graphiql.js']
export const traversalPath = fc.tuple(
  fc.constantFrom('/students/assets/', '/v1/students/assets/', '/v2/students/assets/', '/docs/', '/graphiql/', '/docs/api/', '/errors/'),
  fc.array(fc.constantFrom(...CLIMB), { minLength: 0, maxLength: 6 }),
  fc.constantFrom(...TARGETS)
).map(([base, climbs, target]) => base + [...climbs, target].join('/'))

// The lists' paging, sorting, filters and search (issue 13) beside GraphQL's parameters and hostile keys.
const QUERY_KEYS = [
  'limit', 'cursor', 'city', 'postalCode', 'query', 'variables', 'operationName', 'extensions', '__proto__', 'constructor[prototype][x]', 'a[]', 'limit[]', '',
  'sort', 'q', 'count', 'firstName', 'age', 'age[gte]', 'id[gt]', 'name[contains]', 'lastName[ne]', 'city[lt]', 'age[contains]', 'name[xx]', 'sort[]'
]
/** Names every object has (issue 19): as fields, with an operator, and as operators of real fields. */
const INHERITED_NAMES = [...Object.getOwnPropertyNames(Object.prototype), 'prototype']
const FIELD_NAMES = ['id', 'firstName', 'lastName', 'age', 'name', 'city', 'postalCode']
const inheritedQueryKey: fc.Arbitrary<string> = fc.tuple(fc.constantFrom(...INHERITED_NAMES), fc.constantFrom(...FIELD_NAMES), fc.constantFrom('', '[gt]', '[ne]', '[contains]', 'op'))
  .map(([name, field, form]) => form === 'op' ? `${field}[${name}]` : name + form)
const queryKey: fc.Arbitrary<string> = fc.oneof({ arbitrary: fc.constantFrom(...QUERY_KEYS), weight: 3 }, { arbitrary: inheritedQueryKey, weight: 1 })
const QUERY_VALUES = ['1', '0', '-1', '500', '501', '1e2', 'constructor', '-toString', 'valueOf,id', '9999999999999999999', 'abc', '', 'MQ', 'OTIyMzM3MjAzNjg1NDc3NTgwNw', '%00', '%zz', '%ED%A0%80', '%7B%7D', '{ albums { title } }', '%7B%22f%22%3A1%7D', 'true', '-age,firstName', 'name,name', '-', '%25', 'Berlin']
const queryString = fc.option(
  fc.array(fc.tuple(queryKey, fc.oneof(fc.constantFrom(...QUERY_VALUES), nastyString.map(encodePathPart), graphqlDocument.map(encodePathPart))), { minLength: 1, maxLength: 4 })
    .map((pairs) => '?' + pairs.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&')),
  { freq: 2 }
).map((q) => q ?? '')

const SERVICE_PATHS = fc.oneof(
  { arbitrary: fc.tuple(fc.constantFrom('', '/v1', '/v2', '/v3', '/V2'), fc.constantFrom('/students', '/addresses'), fc.constantFrom('', '/', '/{id}', '/{id}/', '/{id}/{id}', '//{id}')).map(([v, base, tail]) => v + base + tail), weight: 6 },
  { arbitrary: fc.constantFrom('/graphql', '/graphql/', '/graphql/schema.graphql', '/graphiql', '/graphiql/graphiql.js', '/', '/healthz', '/readyz', '/errors', '/errors/{id}', '/errors/VALIDATION_FAILED', '/docs/', '/docs/decisions.md', '/docs/api', '/docs/api/json', '/openapi.json', '/{id}', '/nothing/{id}'), weight: 3 },
  { arbitrary: fc.constantFrom(...ERROR_CODES).map((c) => `/errors/${c}`), weight: 1 }
)

export const path: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.tuple(SERVICE_PATHS, idSegment, idSegment, queryString).map(([p, a, b, q]) => p.replace('{id}', a).replace('{id}', b) + q), weight: 8 },
  { arbitrary: traversalPath, weight: 2 },
  { arbitrary: fc.tuple(fc.constantFrom('/graphql?query=', '/graphql?variables=%7B%7D&query='), graphqlDocument).map(([p, d]) => p + encodePathPart(d)), weight: 2 }
)

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset=latin1',
  'APPLICATION/JSON', 'application/vnd.rqs.v1+json', 'application/vnd.rqs.v2+json', 'application/vnd.rqs.v9+json',
  'application/vnd.other.v2+json', 'text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x', 'application/graphql', 'application/graphql-response+json', '*/*', '', ';;;',
  'application/json;;charset=', 'application/json, text/plain', 'application/problem+json', 'text/html', 'application/xml'
]
const ACCEPTS = [
  'application/json', '*/*', 'text/html', 'application/vnd.rqs.v1+json', 'application/vnd.rqs.v2+json',
  'application/vnd.rqs.v3+json', 'application/graphql-response+json', 'application/json;q=0', 'application/*',
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json; charset=latin1', 'garbage',
  'application/vnd.rqs.v2+json;q=0.5, application/json;q=0.9', '', ',,,', 'image/png'
]
const LANGUAGES = ['de', 'en', 'de-DE,de;q=0.9', 'fr;q=0.9, de;q=0.8', '*', 'xx', '', 'q=0.5;;;', 'de;q=abc']
const ETAGS = ['*', '"abc"', 'W/"abc"', '"a", "b"', 'garbage', '', '"', 'W/', '*, "x"']
/** A few keys, so the same key meets the same and other requests (a replay, or 422). */
const IDEMPOTENCY_KEYS = ['k1', 'k2', '"k1"', '', 'with space', 'a'.repeat(256), 'ü']

const optional = (values: readonly string[]): fc.Arbitrary<string | null> =>
  fc.option(fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 4 }, { arbitrary: nastyString, weight: 1 }), { freq: 2 })

export const headers: fc.Arbitrary<Record<string, string | null>> = fc.record({
  'content-type': fc.option(fc.oneof({ arbitrary: fc.constantFrom(...CONTENT_TYPES), weight: 6 }, { arbitrary: nastyString, weight: 1 }), { freq: 6, nil: null }),
  accept: optional(ACCEPTS),
  'accept-language': optional(LANGUAGES),
  'if-match': fc.option(fc.constantFrom(...ETAGS), { freq: 8 }),
  'if-none-match': fc.option(fc.constantFrom(...ETAGS), { freq: 8 }),
  'idempotency-key': fc.option(fc.constantFrom(...IDEMPOTENCY_KEYS), { freq: 6 }),
  'content-encoding': fc.option(fc.constantFrom('gzip', 'identity', 'br', 'gzip, identity', 'IDENTITY', ''), { freq: 8 }),
  'x-request-id': fc.option(fc.oneof(fc.constantFrom('trace-1', 'a'.repeat(129), 'a b', '../x', ''), nastyString), { freq: 6 }),
  host: fc.option(fc.constantFrom('evil.example', 'evil.example:8080', '[::1]', 'localhost:1', 'a'.repeat(300), ''), { freq: 6 })
})

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY', 'PROPFIND', 'SEARCH', 'MKCOL', 'PURGE']

export const body: fc.Arbitrary<Buffer | undefined> = fc.option(fc.oneof(
  { arbitrary: studentBody.map((t) => Buffer.from(t)), weight: 4 },
  { arbitrary: addressBody.map((t) => Buffer.from(t)), weight: 4 },
  { arbitrary: graphqlBody.map((t) => Buffer.from(t)), weight: 3 },
  { arbitrary: jsonText.map((t) => Buffer.from(t)), weight: 2 },
  { arbitrary: deepJson.map((t) => Buffer.from(t)), weight: 1 },
  { arbitrary: rawBytes, weight: 1 }
), { freq: 5, nil: undefined })

/**
 * A request a client of one service could plausibly send (right method, path
 * and content type), with a body that is often valid and often slightly off:
 * these reach validation, the stores and the GraphQL engine, not just routing.
 */
const jsonType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/vnd.rqs.v2+json')
/** Headers a real client sends: mostly none, a version, a language, a precondition. */
const politeHeaders: fc.Arbitrary<Record<string, string | null>> = fc.record({
  accept: fc.option(fc.constantFrom('application/json', 'application/vnd.rqs.v2+json', '*/*', 'application/graphql-response+json'), { freq: 2 }),
  'accept-language': fc.option(fc.constantFrom('de', 'en'), { freq: 3 }),
  'if-match': fc.option(fc.constantFrom(...ETAGS), { freq: 8 }),
  'if-none-match': fc.option(fc.constantFrom(...ETAGS), { freq: 8 }),
  'idempotency-key': fc.option(fc.constantFrom('k1', 'k2', 'k3'), { freq: 4 })
})
const clientHeaders = fc.oneof({ arbitrary: politeHeaders, weight: 3 }, { arbitrary: headers, weight: 1 })
const plausibleRequest: fc.Arbitrary<{ method: string, path: string, headers: Record<string, string | null>, body: Buffer | undefined }> = fc.oneof(
  fc.tuple(fc.constantFrom('', '/v1', '/v2'), fc.constantFrom('POST', 'PUT'), studentBody, jsonType, clientHeaders).map(([v, method, text, type, h]) =>
    ({ method, path: `${v}/students`, headers: { ...h, 'content-type': type }, body: Buffer.from(text) })),
  fc.tuple(fc.constantFrom('PUT', 'DELETE', 'GET'), idSegment, studentBody, clientHeaders).map(([method, id, text, h]) =>
    ({ method, path: `/v2/students/${id}`, headers: { ...h, 'content-type': 'application/json' }, body: method === 'PUT' ? Buffer.from(text) : undefined })),
  fc.tuple(fc.constantFrom('', '/v2'), addressBody, jsonType, clientHeaders).map(([v, text, type, h]) =>
    ({ method: 'POST', path: `${v}/addresses`, headers: { ...h, 'content-type': type }, body: Buffer.from(text) })),
  fc.tuple(fc.constantFrom('PUT', 'DELETE', 'GET'), idSegment, addressBody, clientHeaders).map(([method, id, text, h]) =>
    ({ method, path: `/addresses/${id}`, headers: { ...h, 'content-type': 'application/json' }, body: method === 'PUT' ? Buffer.from(text) : undefined })),
  fc.tuple(fc.constantFrom('/addresses', '/students', '/v2/students'), queryString, clientHeaders, fc.boolean()).map(([list, q, h, ndjson]) =>
    ({ method: 'GET', path: `${list}${q}`, headers: ndjson ? { ...h, accept: 'application/x-ndjson' } : h, body: undefined })),
  // One inherited name alone in a list's query, so nothing else refuses the request first (issue 19).
  fc.tuple(fc.constantFrom('/addresses', '/students', '/v2/students'), inheritedQueryKey, fc.constantFrom('1', 'a', 'Berlin')).map(([list, key, value]) =>
    ({ method: 'GET', path: `${list}?${encodeURIComponent(key)}=${value}`, headers: {}, body: undefined })),
  fc.tuple(graphqlBody, fc.constantFrom('application/json', 'application/json; charset=utf-8'), clientHeaders).map(([text, type, h]) =>
    ({ method: 'POST', path: '/graphql', headers: { ...h, 'content-type': type }, body: Buffer.from(text) }))
)

/** One hostile request against any route. */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.oneof({ arbitrary: plausibleRequest, weight: 2 }, { arbitrary: fc.record({
  method: fc.oneof({ arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), weight: 6 }, { arbitrary: fc.constantFrom(...METHODS), weight: 2 }),
  path,
  headers,
  body
}), weight: 3 }).map(({ method, path, headers, body }) => ({
  method,
  path: wireSafe(path),
  headers: Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== null)),
  body
}))

/** Percent-encodes what a URL may not carry raw, keeping `%` sequences (valid or not) as they are. */
export function encodePathPart (text: string): string {
  return text.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@%/]/gu, (c) => { try { return encodeURIComponent(c) } catch { return '%EF%BF%BD' } })
}

/** Node's client sends bytes 0x21–0xff in a request target; anything else is percent-encoded here. */
function wireSafe (target: string): string {
  return target.replace(/[^\u0021-\u00ff]/gu, (c) => { try { return encodeURIComponent(c) } catch { return '%EF%BF%BD' } })
}
