/** The API description: /openapi.json generated from the routes, Swagger UI, and the helpers routes use to describe themselves. */
export { HTML_PAGE, SERVER_TAG, answer, noBody } from './describe.js'
export type { ErrorShapeDoc, OperationNotes } from './notes.js'
export { API_DOCS_PATH, OPENAPI_PATH, openApiPlugin } from './plugin.js'
export type { DocumentFollower } from './plugin.js'
export type { OpenApiDocument, SecurityFeatures } from './document.js'
export { problemShape } from './problem-shape.js'
export { ACCEPTS_KEY, SEQUENCE_PATH_ID, STUDENT_PATH_ID, UUID_PATH_ID, int64PathId } from './path-ids.js'
