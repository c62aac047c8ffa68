import { APP_BASE, viewFromLocation } from './view-state.js'

/**
 * Where the page is within the app: a collection's list (`/app/books`), one
 * record's page (`/app/books/7`) or the webhooks page (`/app/webhooks`).
 */
export interface Place {
  view: string | undefined
  /** A record's own page: its id (decoded). */
  record?: string
}

/** The place the address names; an unknown view is the first one (as the app always did). */
export function placeFromLocation (available: readonly string[]): Place {
  const path = location.pathname.startsWith(APP_BASE) ? location.pathname.slice(APP_BASE.length).replace(/\/$/, '') : ''
  const [first = '', second, ...rest] = path.split('/')
  const view = decodeURIComponent(first)
  if (second !== undefined && second !== '' && rest.length === 0 && available.includes(view)) return { view, record: decodeURIComponent(second) }
  return { view: viewFromLocation(available) }
}

/** A record page's address. */
export function recordPath (view: string, id: string): string {
  return `${APP_BASE}${encodeURIComponent(view)}/${encodeURIComponent(id)}`
}

/**
 * Goes to a place in the app without loading the page: a new history entry,
 * then the same event Back and Forward send, so one listener follows both.
 * A click with a modifier (a new tab) is left to the browser.
 */
export function navigate (path: string, event?: MouseEvent): void {
  if (event !== undefined) {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return
    event.preventDefault()
  }
  if (location.pathname + location.search === path) return
  history.pushState(null, '', path)
  dispatchEvent(new PopStateEvent('popstate'))
}
