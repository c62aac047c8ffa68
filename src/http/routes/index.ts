/** What each route declares it is (its service and who may use it): the one thing the cross-cutting plugins read. */
export { declared, declareRoute, declareRoutes } from './declaration.js'
export type { Access, RouteDeclaration } from './declaration.js'
export { addStartStep, RequestStart } from './request-start.js'
export type { StartStep } from './request-start.js'
export { ReplyHeaderObjects } from './reply-headers.js'
export type { HeaderObject } from './reply-headers.js'
