import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromium, type Browser, type Page } from 'playwright-core'
import { startServer, type RunningServer } from '../../helpers/server.js'

/**
 * Swagger UI's "Try it out" in a real browser (issue 37, item 8): an
 * operation filed under v2 sends v2's media type as Accept and Content-Type
 * and gets v2's answer (Swagger UI alone sends an Accept of any type, which
 * chooses v1 at a base path); the examples run; the streams offer no
 * "Try it out" (it would spin for ever).
 */

/** Debian's `chromium` package; CI (.ci/run) installs it. Never a downloaded browser build. */
const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'
]
const V2 = 'application/vnd.rqs.v2+json'

const hasChromium = existsSync(CHROMIUM)
const title = hasChromium ? 'Swagger UI in a real browser' : `Swagger UI in a real browser: SKIPPED because ${CHROMIUM} is missing (apt-get install chromium)`

describe.skipIf(!hasChromium)(title, () => {
  let server: RunningServer
  let browser: Browser

  beforeAll(async () => {
    server = await startServer()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  /** Opens an operation (by its operationId) and presses "Try it out", then "Execute"; resolves with the request sent and its answer. */
  async function tryOut (page: Page, operationId: string, path: string): Promise<{ accept?: string, contentType?: string, status: number, type?: string, body: string }> {
    const op = page.locator(`.opblock[id$="-${operationId}"]`).first()
    await op.locator('.opblock-summary').click()
    await op.locator('.try-out__btn').click()
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === path && r.request().method() !== 'OPTIONS')
    await op.locator('.execute').click()
    const res = await answer
    const sent = res.request().headers()
    return { accept: sent.accept, contentType: sent['content-type'], status: res.status(), type: res.headers()['content-type'], body: await res.text() }
  }

  it('a v2 operation is tried as v2, the GraphQL example finds an album, streams offer no Try it out', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' })
    try {
      const page = await context.newPage()
      const pageErrors: string[] = []
      page.on('pageerror', (error) => pageErrors.push(error.message))
      await page.goto(`${server.origin}/docs/api/`)
      await page.locator('.opblock[id$="-createStudent"]').first().waitFor({ timeout: 30_000 })

      const created = await tryOut(page, 'createStudent', '/students')
      expect(created).toMatchObject({ accept: V2, contentType: V2, status: 201 })
      expect(created.type).toMatch(/^application\/vnd\.rqs\.v2\+json/)
      expect(JSON.parse(created.body)).toEqual({ id: 0, firstName: 'Ada', lastName: 'Lovelace', age: 36 })

      const albums = await tryOut(page, 'queryAlbums', '/graphql')
      expect(albums.status).toBe(200)
      expect(JSON.parse(albums.body).data.albums.length).toBeGreaterThan(0)

      for (const id of ['streamChanges', 'subscribe', 'subscribeByGet']) {
        const op = page.locator(`.opblock[id$="-${id}"]`).first()
        await op.locator('.opblock-summary').click()
        await expect.poll(async () => await op.innerText(), { timeout: 10_000 }).toContain('curl -N')
        expect([id, await op.locator('.try-out__btn').isVisible()]).toEqual([id, false])
      }
      expect(pageErrors).toEqual([])
    } finally {
      await context.close()
    }
  }, 90_000)
})
