/**
 * The access token a person entered, kept in sessionStorage: it lasts for
 * this tab (reloads included) and is gone when the tab closes.
 */
const KEY = 'rqs.token'

export function readToken (): string | undefined {
  try { return sessionStorage.getItem(KEY) ?? undefined } catch { return undefined }
}

export function storeToken (token: string): void {
  try { sessionStorage.setItem(KEY, token) } catch { /* storage blocked: the token lasts for this page */ }
}

export function forgetToken (): void {
  try { sessionStorage.removeItem(KEY) } catch { /* nothing stored */ }
}
