/** What each route declares it is (its service and who may use it): the one thing the cross-cutting plugins read. */
export { declared, declareRoute, declareRoutes } from './declaration.js'
export type { Access, RouteDeclaration } from './declaration.js'
