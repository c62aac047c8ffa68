import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { CHROMIUM, expectClean, hasChromium, launch, openSession, poll } from '../app/browser.js'
import { declarationFiles } from './fixture.js'

/**
 * Issue 21: a declared collection is shown in the web app, in a view built
 * from its schema (a column and a form field per property, a boolean as a
 * choice), and what the page adds is what the API reads.
 */
const files = declarationFiles()
const SHELF = {
  collections: {
    books: {
      schema: {
        type: 'object',
        properties: {
          title: { type: 'string', title: 'Title', minLength: 1, maxLength: 200 },
          year: { type: 'integer', minimum: 0, maximum: 3000 },
          available: { type: 'boolean' }
        },
        required: ['title']
      }
    }
  }
}

const title = hasChromium ? 'a declared collection in the web app' : `a declared collection in the web app: SKIPPED because ${CHROMIUM} is missing (apt-get install chromium)`

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  beforeAll(async () => {
    browser = await launch()
    server = await startServer({ collections: fromFile(files.write('shelf.json', SHELF), '--collections') })
    expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Dune', year: 1965, available: true } })).status).toBe(201)
  })
  afterAll(async () => {
    await server?.close()
    await browser?.close()
  })

  it('lists its records in a view built from the schema and adds one from the form', async () => {
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/books`)
    await page.getByRole('heading', { level: 1, name: 'Books' }).waitFor()
    // The view's navigation names it beside the built-in ones.
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Books' }).count()).toBe(1)
    await page.locator('tbody tr[data-id="1"]').waitFor()
    expect(await page.locator('thead th').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('Title'), expect.stringContaining('Year'), expect.stringContaining('Available')]))
    expect(await page.locator('tbody tr[data-id="1"]').innerText()).toMatch(/Dune[\s\S]*1965[\s\S]*yes/)

    // The add form (the filters have fields of the same names).
    const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Add', exact: true }) })
    await form.getByLabel('Title', { exact: true }).fill('Emma')
    await form.getByLabel('Year', { exact: true }).fill('1815')
    await form.getByLabel('Available', { exact: true }).selectOption('false')
    await form.getByRole('button', { name: 'Add', exact: true }).click()
    await page.locator('tbody tr[data-id="2"]').waitFor()
    await poll(async () => (await request(`${server.origin}/books/2`)).body).toEqual({ id: 2, title: 'Emma', year: 1815, available: false })
    expect(await page.locator('tbody tr[data-id="2"]').innerText()).toMatch(/Emma[\s\S]*1815[\s\S]*no/)
    expectClean(session)
    await session.context.close()
  })
})
