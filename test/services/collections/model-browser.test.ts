import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { CHROMIUM, expectClean, hasChromium, launch, openSession, poll } from '../app/browser.js'
import { declarationFiles } from './fixture.js'
import { MODEL } from './model.suite.js'

/**
 * Issue 29 in the web app: an enum is a select, the add form starts with the
 * declared defaults, and automatic timestamps are shown but never sent.
 */
const files = declarationFiles()
const title = hasChromium ? 'the data model in the web app' : `the data model in the web app: SKIPPED because ${CHROMIUM} is missing (apt-get install chromium)`

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  beforeAll(async () => {
    browser = await launch()
    server = await startServer({ collections: fromFile(files.write('model.json', MODEL), '--collections') })
    expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Dune', year: 1965 } })).status).toBe(201)
  })
  afterAll(async () => {
    await server?.close()
    await browser?.close()
  })

  it('offers an enum as a select, starts the form with the defaults and leaves the timestamps out of it', async () => {
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/books`)
    await page.locator('tbody tr[data-id="1"]').waitFor()
    const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Add', exact: true }) })
    const status = form.getByLabel('Status', { exact: true })
    expect(await status.evaluate((e) => e.tagName)).toBe('SELECT')
    expect(await status.inputValue()).toBe('draft')
    expect(await status.locator('option').allInnerTexts()).toEqual(['(none)', 'draft', 'published'])
    expect(await form.getByLabel('Copies', { exact: true }).inputValue()).toBe('1')
    expect(await form.getByLabel('Rating', { exact: true }).locator('option').allInnerTexts()).toEqual(['(none)', '1', '2', '3', '4', '5'])
    expect(await form.getByLabel('Created at', { exact: true }).count()).toBe(0)
    // The timestamps are columns of the list all the same.
    expect(await page.locator('thead th').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('Created at'), expect.stringContaining('Updated at')]))

    await form.getByLabel('Title', { exact: true }).fill('Emma')
    await form.getByLabel('Year', { exact: true }).fill('1815')
    await status.selectOption('published')
    await form.getByLabel('Rating', { exact: true }).selectOption('4')
    await form.getByRole('button', { name: 'Add', exact: true }).click()
    await page.locator('tbody tr[data-id="2"]').waitFor()
    await poll(async () => (await request(`${server.origin}/books/2`)).body).toMatchObject({ id: 2, title: 'Emma', year: 1815, status: 'published', rating: 4, copies: 1, note: null })
    expect((await request(`${server.origin}/books/2`)).body.createdAt).toMatch(/Z$/)
    expectClean(session)
    await session.context.close()
  })
})
