/**
 * The records rqs keeps, and what every store shares about them: how two
 * records compare (for If-Match compare-and-set) and the largest address id.
 */

// Type aliases, not interfaces: a typed record is then a StoredRecord too (an alias has an implicit index signature).
export type StudentInput = {
  firstName: string
  lastName: string
  age: number
}

export type Student = StudentInput & {
  id: number
}

export type AddressInput = {
  name: string
  city: string
  postalCode: string
}

export type Address = AddressInput & {
  /** 64-bit: 1 … 9223372036854775807. */
  id: bigint
}

/** The largest address id: 2^63 − 1, the top of a signed 64-bit integer (SQL bigint). */
export const MAX_ADDRESS_ID = 9223372036854775807n

export function sameStudent (a: Student, b: Student): boolean {
  return a.id === b.id && a.firstName === b.firstName && a.lastName === b.lastName && a.age === b.age
}

export function sameAddress (a: Address, b: Address): boolean {
  return a.id === b.id && a.name === b.name && a.city === b.city && a.postalCode === b.postalCode
}
