/**
 * How many records a walk reads before it lets other requests run (issue 19):
 * about a millisecond of filtering. A search or count that reads 200 000
 * records then holds the event loop in ≈ 50 short turns instead of one long one.
 */
export const SCAN_CHUNK = 4096

/** Given out by a walk after every SCAN_CHUNK records it read: the caller awaits a turn of the event loop. */
export const PAUSE: unique symbol = Symbol('pause')
