/** Security: authentication and scopes, CORS, protective headers, rate limits, overload shedding. */
export { principalOf, REALM, type Authenticator } from './auth.js'
export { callerOf, callerOfPrincipal } from './caller.js'
export type { Principal } from './tokens.js'
export { SCOPES, checkName, checkRole, checkSubject, generateToken, isScope, tokenEntry } from './tokens.js'
export type { Scope } from './tokens.js'
export { security, securityPluginOptions } from './plugin.js'
export type { SecurityPluginOptions } from './plugin.js'
