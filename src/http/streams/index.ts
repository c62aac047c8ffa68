/** Long-lived streams (issue 36): one registry per server, one budget, ended when their credential goes. */
export { StreamRegistry, StreamSlot, type CredentialEnd, type StreamOwner, type StreamRefusal, type StreamRegistryOptions } from './registry.js'
export { RETRY_AFTER, streamOwner } from './owner.js'
export { streams } from './plugin.js'
