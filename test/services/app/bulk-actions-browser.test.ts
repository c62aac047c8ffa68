import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { declarationFiles } from '../collections/fixture.js'
import { bearer, security, writeTokensFile } from '../../http/security/helpers.js'
import { CHROMIUM, expectClean, hasChromium, launch, openSession, poll, type Session } from './browser.js'

/**
 * Row selection and bulk actions in the records view: the ticked records go
 * as one atomic `POST /batch`, each with the ETag read when it was ticked, so
 * a record changed since then keeps every record of the batch as it was.
 */
const files = declarationFiles()
const SHELF = {
  collections: {
    books: {
      schema: {
        type: 'object',
        properties: { title: { type: 'string', minLength: 1, maxLength: 200 }, year: { type: 'integer', minimum: 0, maximum: 3000 } },
        required: ['title']
      },
      ids: 'sequence'
    }
  }
}
const title = hasChromium ? 'the app\'s selection and bulk actions' : `the app's selection and bulk actions: SKIPPED because ${CHROMIUM} is missing`

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

  const books = async (): Promise<Array<{ id: number, title: string, year?: number }>> =>
    (await request(`${server.origin}/books?limit=100`)).body.items
  /** Ticks a row and waits for the page's read of that record (the ETag the bulk action sends). */
  const tick = async (page: Page, id: number): Promise<void> => {
    const read = page.waitForResponse((res) => res.request().method() === 'GET' && new URL(res.url()).pathname === `/books/${id}`)
    await page.locator(`#select-books-${id}`).check()
    await read
  }

  it('select 3 of 5 and delete: 2 remain; a record changed after it was selected keeps the whole batch out and is named; set a field on the rest', async () => {
    for (let i = 1; i <= 5; i++) expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: `Book ${i}`, year: 2000 + i } })).status).toBe(201)
    const session = await openSession(browser)
    sessions.push(session)
    const { page } = session
    const batches: string[] = []
    page.on('request', (req) => { if (new URL(req.url()).pathname === '/batch') batches.push(req.postData() ?? '') })
    await page.goto(`${server.origin}/app/books`)
    await page.locator('tbody tr[data-id="5"]').waitFor()

    // The header's checkbox and each row's are labelled; the count of the selection is shown.
    expect(await page.getByLabel('Select all on this page', { exact: true }).count()).toBeGreaterThan(0)
    for (const id of [1, 2, 3]) await tick(page, id)
    await poll(async () => await page.locator('#bulk-count-books').textContent()).toBe('3 selected')

    await page.getByRole('button', { name: 'Delete selected' }).click()
    const dialog = page.getByRole('dialog', { name: 'Delete 3 selected?' })
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Delete' }).click()
    await poll(async () => (await books()).map((b) => b.id)).toEqual([4, 5])
    await poll(async () => await page.locator('tbody tr').count()).toBe(2)
    await poll(async () => await page.getByRole('status').first().textContent()).toBe('3 records deleted.')
    // One batch, each DELETE with its record's ETag.
    expect(batches).toHaveLength(1)
    const sent = JSON.parse(batches[0] ?? '{}') as { requests: Array<{ method: string, url: string, headers?: Record<string, string> }> }
    expect(sent.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['DELETE /books/1', 'DELETE /books/2', 'DELETE /books/3'])
    expect(sent.requests.every((r) => /^"[^"]+"$/.test(r.headers?.['If-Match'] ?? ''))).toBe(true)

    // Select both, then someone changes book 5 over HTTP: the delete refuses both and names book 5.
    await tick(page, 4)
    await tick(page, 5)
    await poll(async () => await page.locator('#bulk-count-books').textContent()).toBe('2 selected')
    expect((await request(`${server.origin}/books/5`, { method: 'PUT', json: { title: 'Book 5, second edition', year: 2024 } })).status).toBe(200)
    await page.getByRole('button', { name: 'Delete selected' }).click()
    await page.getByRole('dialog', { name: 'Delete 2 selected?' }).getByRole('button', { name: 'Delete' }).click()
    await poll(async () => await page.getByRole('status').first().textContent())
      .toMatch(/^Nothing of these 2 records was changed\. Book 5.*: changed since you loaded it — reload\.$/)
    expect((await books()).map((b) => b.id)).toEqual([4, 5])

    // Ticked again (the current version read), "Set field…" changes the year of both in one batch.
    await page.locator('#select-books-5').uncheck()
    await tick(page, 5)
    await page.getByRole('button', { name: 'Set field…' }).click()
    await page.getByLabel('Field', { exact: true }).selectOption('year')
    await page.getByLabel('Value', { exact: true }).fill('1999')
    await page.getByRole('button', { name: 'Set on 2 records' }).click()
    await poll(async () => (await books()).map((b) => [b.title, b.year])).toEqual([['Book 4', 1999], ['Book 5, second edition', 1999]])
    await poll(async () => await page.getByRole('status').first().textContent()).toBe('Year set on 2 records.')
    expectClean(session, [422])
  })

  it('a token that may only read: the refused bulk delete says so, deletes nothing, and the selection goes', async () => {
    const tokens = await writeTokensFile({ reader: ['read'], writer: ['read', 'write'] })
    const secured = await startServer({ security: security({ authTokensFile: tokens.path, authFailureLimit: { max: 1000, windowMs: 60_000 } }) })
    try {
      const student = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }
      const created = await request(`${secured.origin}/v2/students`, { method: 'POST', headers: bearer(tokens.tokens.writer), json: student })
      expect(created.status).toBe(201)
      const session = await openSession(browser)
      sessions.push(session)
      const { page } = session
      await page.goto(`${secured.origin}/app/students`)
      await page.evaluate(`sessionStorage.setItem('rqs.token', ${JSON.stringify(tokens.tokens.reader)})`)
      await page.reload()
      const id = String(created.body.id)
      await page.locator(`tbody tr[data-id="${id}"]`).waitFor()
      const read = page.waitForResponse((res) => new URL(res.url()).pathname.endsWith(`/students/${id}`))
      await page.locator(`#select-students-${id}`).check()
      await read
      await page.getByRole('button', { name: 'Delete selected' }).click()
      await page.getByRole('dialog', { name: 'Delete 1 selected?' }).getByRole('button', { name: 'Delete' }).click()
      await poll(async () => await page.getByRole("status").first().textContent()).toBe('Nothing of these 1 records was changed. Your access token does not allow this.')
      await poll(async () => await page.locator(`#select-students-${id}`).count()).toBe(0)
      expect(await page.getByRole('button', { name: 'Delete selected' }).count()).toBe(0)
      expect((await request(`${secured.origin}/v2/students/${id}`, { headers: bearer(tokens.tokens.reader) })).status).toBe(200)
    } finally {
      await secured.close()
      await tokens.remove()
    }
  })
})
