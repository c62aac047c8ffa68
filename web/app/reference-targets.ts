import type { Api } from './api.js'
import type { Endpoint } from './listing.js'
import type { ResourceSpec } from './resources.js'

/** A collection a reference may name: its spec and where it is. */
export interface Target {
  spec: ResourceSpec
  endpoint: Endpoint
}

/**
 * The collections the page shows, for the reference picker: set once by the
 * application, read by any form's reference field (no props through every
 * form for one field kind).
 */
let known: { api: Api, targets: ReadonlyMap<string, Target> } | undefined

export function setReferenceTargets (api: Api, targets: readonly Target[]): void {
  known = { api, targets: new Map(targets.map((target) => [target.spec.key, target])) }
}

export function referenceTarget (collection: string): { api: Api, target: Target } | undefined {
  const target = known?.targets.get(collection)
  return known === undefined || target === undefined ? undefined : { api: known.api, target }
}
