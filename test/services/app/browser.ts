import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { expect } from 'vitest'
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core'

/** Debian's `chromium` package; CI (.ci/run) installs it. Never a downloaded browser build. */
export const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'
]

export async function launch (): Promise<Browser> {
  return await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
}

export const DESKTOP = { width: 1280, height: 800 }
export const PHONE = { width: 390, height: 844 }

function isLoopback (url: string): boolean {
  const { protocol, hostname } = new URL(url)
  if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return true
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]'
}

/** A page plus everything it did that a test checks afterwards. */
export interface Session {
  context: BrowserContext
  page: Page
  /** Console messages of type error or warning, with where they came from. */
  console: string[]
  pageErrors: string[]
  /** Requests to anything but this machine (blocked before they leave). */
  outside: string[]
  /** Every request's method and path (with query), in order. */
  requests: string[]
  /** Every answer with status ≥ 400: "STATUS METHOD PATH". */
  failures: string[]
}

/** Opens a page in a fresh context that blocks and records any request to another host. */
export async function openSession (browser: Browser, options: BrowserContextOptions = {}): Promise<Session> {
  const context = await browser.newContext({ viewport: DESKTOP, serviceWorkers: 'block', locale: 'en-US', ...options })
  const session: Session = { context, page: undefined as unknown as Page, console: [], pageErrors: [], outside: [], requests: [], failures: [] }
  await context.route(/.*/, async (route) => {
    const url = route.request().url()
    if (isLoopback(url)) return await route.fallback()
    session.outside.push(url)
    return await route.abort('blockedbyclient')
  })
  const page = await context.newPage()
  session.page = page
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') session.console.push(`${message.type()}: ${message.text()} @ ${message.location().url}`)
  })
  page.on('pageerror', (error) => session.pageErrors.push(error.message))
  page.on('request', (request) => {
    const url = new URL(request.url())
    session.requests.push(`${request.method()} ${url.pathname}${url.search}`)
  })
  page.on('response', (response) => {
    if (response.status() < 400) return
    const url = new URL(response.url())
    session.failures.push(`${response.status()} ${response.request().method()} ${url.pathname}`)
  })
  return session
}

const NETWORK_LOG = /^error: Failed to load resource: the server responded with a status of (\d{3})\b/

/**
 * Nothing went wrong in the page: no exception, no console error or warning
 * from any script, no request to another host. The one thing Chromium logs
 * by itself is a failed HTTP answer ("Failed to load resource: … 400"); the
 * test names the statuses it provoked on purpose (a rejected form, a
 * conflict), and every other failed answer counts as an error.
 */
export function expectClean (session: Session, provoked: readonly number[] = []): void {
  expect(session.pageErrors, 'uncaught exceptions').toEqual([])
  expect(session.outside, 'requests to other hosts').toEqual([])
  const unexpected = session.console.filter((line) => {
    const status = NETWORK_LOG.exec(line)?.[1]
    return status === undefined || !provoked.includes(Number(status))
  })
  expect(unexpected, 'console errors and warnings').toEqual([])
  expect(session.failures.filter((line) => !provoked.includes(Number(line.slice(0, 3)))), 'failed answers').toEqual([])
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface AxeViolation { id: string, impact: string | null, help: string, nodes: Array<{ target: unknown[] }> }

/* Page code is passed as strings: the project's type check has no DOM library (it checks server code). */
const AXE_OPTIONS = { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } }

/** Runs axe-core in the page (WCAG 2.x A and AA rules) and returns the serious and critical violations. */
export async function seriousViolations (page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, not a <script>: a Content-Security-Policy cannot stop it.
  if (!await page.evaluate<boolean>("'axe' in window")) await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate<AxeViolation[]>(`axe.run(document, ${JSON.stringify(AXE_OPTIONS)}).then((result) => result.violations)`)
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact ?? ''} ${v.id}: ${v.help} — ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`)
}

/** The id of the focused element. */
export async function focusedId (page: Page): Promise<string | undefined> {
  return await page.evaluate<string | undefined>('document.activeElement?.id')
}

/** expect.poll with room for a busy machine: it passes as soon as the page gets there. */
export function poll<T> (read: () => T | Promise<T>): ReturnType<typeof expect.poll<T>> {
  return expect.poll(read, { timeout: 15_000, interval: 50 })
}
