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
          available: { type: 'boolean' },
          isbn: { type: 'string', title: 'ISBN', pattern: '^[0-9-]{10,17}$', 'x-hint': '10 to 17 digits or hyphens', description: 'The book\'s ISBN.' }
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

  // Issue 37, item 3: the view offers only what the server accepts, and says the limits it breaks.
  it('offers sorting by the fields the server sorts by, and opens a link sorted by another in the default order', async () => {
    const session = await openSession(browser)
    const { page } = session
    // Every field sorts, optional ones too (issue 31); a name that is no field is no sort key (`?sort=nope` is a 400).
    expect((await request(`${server.origin}/books?sort=nope`)).status).toBe(400)
    await page.goto(`${server.origin}/app/books?sort=nope&q=`)
    await page.locator('tbody tr[data-id="1"]').waitFor()
    // Corrected, not failed: the default order, and the URL says so.
    await poll(() => page.evaluate<string>('location.search')).toBe('')
    expect(await page.getByRole('alert').count()).toBe(0)
    expect(session.requests.filter((r) => !r.startsWith('GET /app/') && r.includes('sort='))).toEqual([])
    const header = page.locator('thead')
    for (const name of [/Title/, /Year/, /Available/, /ISBN/]) expect(await header.getByRole('button', { name }).count(), String(name)).toBe(1)
    const options = page.locator('select[id="sort-books"] option')
    const offered: Array<string | null> = []
    for (let i = 0; i < await options.count(); i++) offered.push(await options.nth(i).getAttribute('value'))
    expect(offered.slice(0, 3)).toEqual(['', 'title', '-title'])
    expect(offered).toEqual(expect.arrayContaining(['year', '-year', 'available', '-available', 'isbn', '-isbn']))
    // What it offers, the server takes.
    await header.getByRole('button', { name: /Title/ }).click()
    await poll(() => page.evaluate<string>('location.search')).toBe('?sort=title')
    await page.goto(`${server.origin}/app/books?sort=-year`)
    await page.locator('tbody tr[data-id="1"]').waitFor()
    await poll(() => page.evaluate<string>('location.search')).toBe('?sort=-year')
    expectClean(session)
    await session.context.close()
  })

  it('says the limit a year breaks and a pattern\'s declared hint, in English and German', async () => {
    for (const [locale, add, year, isbn] of [
      // The shelf declares 0 to 3000 (one bound alone: "at most 3,000", test/web/app/offers.test.ts).
      ['en-US', 'Add', 'Year must be a whole number from 0 to 3,000.', 'ISBN is not valid: 10 to 17 digits or hyphens'],
      ['de-DE', 'Hinzufügen', 'Year muss eine ganze Zahl von 0 bis 3.000 sein.', 'ISBN ist ungültig: 10 to 17 digits or hyphens']
    ] as const) {
      const session = await openSession(browser, { locale })
      const { page } = session
      await page.goto(`${server.origin}/app/books`)
      const form = page.locator('form').filter({ has: page.getByRole('button', { name: add, exact: true }) })
      await form.getByLabel('Title', { exact: true }).fill('Far future')
      await form.getByLabel('Year', { exact: true }).fill('4000')
      await form.getByLabel('ISBN', { exact: true }).fill('not an isbn')
      await form.getByRole('button', { name: add, exact: true }).click()
      await poll(() => page.locator('#add-books-year-error').innerText()).toBe(year)
      expect(await page.locator('#add-books-isbn-error').innerText()).toBe(isbn)
      expectClean(session, [400])
      await session.context.close()
    }
  })
})
