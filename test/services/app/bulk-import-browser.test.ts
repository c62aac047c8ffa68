import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { declarationFiles } from '../collections/fixture.js'
import { CHROMIUM, hasChromium, launch, openSession, poll, type Session } from './browser.js'

/**
 * The app's import of new records goes through the bulk create: a file
 * within the server's limits (10 000 records, the body limit) is one request,
 * so one line the server refuses keeps every line out; a larger file goes in
 * chunks of 10 000 and the page says which lines were stored.
 */
const files = declarationFiles()
const SHELF = {
  collections: {
    books: {
      schema: {
        type: 'object',
        properties: { title: { type: 'string', minLength: 1, maxLength: 200 }, year: { type: 'integer', minimum: 0, maximum: 3000 }, available: { type: 'boolean' } },
        required: ['title']
      },
      ids: 'sequence'
    }
  }
}
const title = hasChromium ? 'the app\'s import as bulk creates' : `the app's import as bulk creates: SKIPPED because ${CHROMIUM} is missing`

/** A books CSV of `n` rows; the row at `bad` (a line of the file) has a year the server refuses (the preview types it, the schema's maximum is the server's). */
function booksCsv (n: number, bad?: number): string {
  const rows = Array.from({ length: n }, (_, i) => `Book ${i + 1},${i + 2 === bad ? 4000 : 2000},true\r\n`)
  return `title,year,available\r\n${rows.join('')}`
}

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  const sessions: Session[] = []
  beforeAll(async () => {
    browser = await launch()
    server = await startServer({ collections: fromFile(files.write('shelf.json', SHELF), '--collections') })
  })
  afterAll(async () => {
    await server?.close()
    await browser?.close()
  })
  afterEach(async () => { for (const s of sessions.splice(0)) await s.context.close() })

  /** The books page, and the writes it sends to /books (the page's network events). */
  const open = async (options = {}): Promise<{ page: Page, writes: Array<{ method: string, key: string | undefined }> }> => {
    const session = await openSession(browser, options)
    sessions.push(session)
    const writes: Array<{ method: string, key: string | undefined }> = []
    session.page.on('request', (req) => {
      if (req.method() !== 'GET' && new URL(req.url()).pathname.startsWith('/books')) writes.push({ method: req.method(), key: req.headers()['idempotency-key'] })
    })
    await session.page.goto(`${server.origin}/app/books`)
    await session.page.locator('.transfer input[type=file]').waitFor({ state: 'attached' })
    return { page: session.page, writes }
  }
  const pick = async (page: Page, name: string, csv: string): Promise<void> => {
    await page.locator('.transfer input[type=file]').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(csv) })
  }
  const held = async (): Promise<number> => Number((await request(`${server.origin}/books?limit=1&count=true`)).headers.get('x-total-count'))

  it('sends a file that fits as one request: one bad line stores nothing and is named; the good file is stored whole', async () => {
    const { page, writes } = await open()
    await pick(page, 'books.csv', booksCsv(3_000, 2_501))
    expect(await page.locator('.import-requests').textContent()).toBe('The 3,000 new records are sent as one request: all are stored or none.')
    await page.getByRole('button', { name: 'Import 3,000 records' }).click()
    await poll(async () => await page.locator('.transfer-summary').textContent())
      .toMatch(/^0 records added; 3,000 refused\. Nothing was stored: the import is all or nothing, and the server refused the lines below\. Line 2501: year is out of the allowed range/)
    expect(await held()).toBe(0)
    expect(writes).toEqual([{ method: 'POST', key: expect.stringMatching(/^[0-9a-f-]{32,36}$/) }])

    writes.length = 0
    await pick(page, 'books.csv', booksCsv(3_000))
    await page.getByRole('button', { name: 'Import 3,000 records' }).click()
    await poll(async () => await page.locator('.transfer-summary').textContent()).toMatch(/^3,000 records added; 0 refused\.$/)
    expect(await held()).toBe(3_000)
    expect(writes).toHaveLength(1)
  })

  it('sends a larger file in chunks of 10 000 and says which lines were stored when a chunk is refused', async () => {
    await request(`${server.origin}/books?all=true`, { method: 'DELETE' })
    const { page, writes } = await open()
    await pick(page, 'many.csv', booksCsv(12_000, 11_000))
    expect(await page.locator('.import-requests').textContent()).toMatch(/^The new records are sent in 2 requests of up to 10,000 records: each request is stored whole or not at all/)
    expect(await page.getByRole('checkbox', { name: 'Stop at the first refused request' }).isChecked()).toBe(true)
    await page.getByRole('button', { name: 'Import 12,000 records' }).click()
    await poll(async () => await page.locator('.transfer-summary').textContent())
      .toMatch(/^10,000 records added; 2,000 refused\. Sent in requests of up to 10,000 records: lines 2–10,001 were stored; nothing of lines 10,002–12,001 was stored \(refused\)\. Line 11000: year/)
    expect(await held()).toBe(10_000)
    expect(writes.map((w) => w.method)).toEqual(['POST', 'POST'])
    expect(new Set(writes.map((w) => w.key)).size).toBe(2)
  })

  it('says it in German', async () => {
    await request(`${server.origin}/books?all=true`, { method: 'DELETE' })
    const { page } = await open({ locale: 'de-DE' })
    await pick(page, 'buecher.csv', booksCsv(3, 3))
    expect(await page.locator('.import-requests').textContent()).toBe('Die 3 neuen Einträge werden in einer Anfrage gesendet: Alle werden gespeichert oder keiner.')
    await page.getByRole('button', { name: '3 Einträge importieren' }).click()
    await poll(async () => await page.locator('.transfer-summary').textContent())
      .toMatch(/^0 Einträge hinzugefügt; 3 abgelehnt\. Nichts wurde gespeichert: Der Import gilt ganz oder gar nicht, und der Server hat die folgenden Zeilen abgelehnt\. Zeile 3: year /)
    expect(await held()).toBe(0)
  })

  it('cancels between requests: the request sent is stored whole, nothing after it is sent', async () => {
    await request(`${server.origin}/books?all=true`, { method: 'DELETE' })
    const { page, writes } = await open()
    // The first request is held until Cancel has been pressed, so the cancel falls between two requests.
    let release = (): void => {}
    const cancelled = new Promise<void>((resolve) => { release = resolve })
    await page.route('**/books', async (route) => {
      if (route.request().method() === 'POST') await cancelled
      await route.fallback()
    })
    await pick(page, 'many.csv', booksCsv(25_000))
    await page.getByRole('button', { name: 'Import 25,000 records' }).click()
    await page.locator('.import-cancel').click()
    release()
    await poll(async () => await page.locator('.transfer-summary').textContent()).toMatch(/^10,000 records added; 0 refused\. Import cancelled after 10,000 of 25,000 records\.$/)
    expect(await held()).toBe(10_000)
    expect(writes).toHaveLength(1)
  })
})
