import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { CHROMIUM, expectClean, hasChromium, launch, openSession, poll, seriousViolations } from './browser.js'

/**
 * Issue 37, item 5: a record's own page at /app/{collection}/{id} (deep
 * link, fields by label, references as links, the records referring to it,
 * edit, delete, Back), page numbers, a column chooser kept per collection,
 * and required marks from the declaration.
 */
const LIBRARY = fileURLToPath(new URL('../../../examples/library.json', import.meta.url))
const title = hasChromium ? 'the app\'s record page, page numbers and column chooser' : `the app's record page: SKIPPED because ${CHROMIUM} is missing`

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  const post = async (path: string, json: unknown): Promise<void> => {
    expect((await request(`${server.origin}${path}`, { method: 'POST', json })).status, path).toBe(201)
  }
  beforeAll(async () => {
    browser = await launch()
    server = await startServer({ collections: fromFile(LIBRARY, '--collections') })
    await post('/authors', { name: 'Frank Herbert', born: 1920 })
    await post('/books', { title: 'Dune', year: 1965, author: 1 })
    await post('/books', { title: 'Children of Dune', year: 1976, author: 1 })
    await post('/reviews', { text: 'A classic', book: 1 })
  })
  afterAll(async () => {
    await server?.close()
    await browser?.close()
  })

  it('opens a record from a deep link, links its reference, lists what refers to it, and Back returns', async () => {
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/books/1`)
    await page.getByRole('heading', { level: 1, name: 'Books: Dune' }).waitFor()
    const fields = page.locator('dl.record-fields')
    await poll(async () => await fields.innerText()).toMatch(/Title\s+Dune[\s\S]*Year\s+1965[\s\S]*Author\s+Frank Herbert/)
    // The records that refer to this one: the review, by its field.
    await page.getByRole('heading', { name: 'Referred to by' }).waitFor()
    expect(await page.locator('.back-relations').innerText()).toMatch(/Reviews \(Book\): 1[\s\S]*A classic/)
    expect(await seriousViolations(page), 'axe-core on a record\'s page').toEqual([])

    // The reference is a link to the author's own page, which lists both books.
    await fields.getByRole('link', { name: 'Frank Herbert' }).click()
    await page.getByRole('heading', { level: 1, name: 'Authors: Frank Herbert' }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/app/authors/1')
    await poll(async () => await page.locator('.back-relations').innerText()).toMatch(/Books \(Author\): 2[\s\S]*Dune[\s\S]*Children of Dune/)

    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'Books: Dune' }).waitFor()
    await page.getByRole('link', { name: 'Back to Books' }).click()
    await page.getByRole('heading', { level: 1, name: 'Books' }).waitFor()
    await page.locator('tbody tr[data-id="2"]').waitFor()
    expectClean(session)
    await session.context.close()
  })

  it('opens a record from the list by its id, edits it there against its version, and deletes it', async () => {
    await post('/books', { title: 'Emma', year: 1815, author: 1 })
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/books?sort=-year`)
    const row = page.locator('tbody tr[data-id="3"]')
    await row.waitFor()
    await row.getByRole('link', { name: '3' }).click()
    await page.getByRole('heading', { level: 1, name: 'Books: Emma' }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/app/books/3')

    await page.getByRole('button', { name: 'Edit' }).click()
    const year = page.getByLabel('Year', { exact: true })
    await poll(async () => await year.inputValue()).toBe('1815')
    expect(await seriousViolations(page), 'axe-core on a record\'s page, editing').toEqual([])
    // The declaration's required fields are marked.
    expect(await page.getByLabel('Title', { exact: true }).getAttribute('aria-required')).toBe('true')
    expect(await year.getAttribute('aria-required')).toBeNull()
    await year.fill('4000')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.locator('.field-error').filter({ hasText: 'from 0 to 3,000' }).waitFor()
    await year.fill('1816')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.locator('.banner-slot [role=status]').filter({ hasText: 'Emma was saved.' }).waitFor()
    expect((await request(`${server.origin}/books/3`)).body).toMatchObject({ title: 'Emma', year: 1816 })
    await poll(async () => await page.locator('dl.record-fields').innerText()).toMatch(/Year\s+1816/)

    // Back: the list as it was left (its sort in the URL).
    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'Books' }).waitFor()
    expect(new URL(page.url()).search).toBe('?sort=-year')
    await poll(async () => await page.locator('tbody tr').first().getAttribute('data-id')).toBe('2')
    await page.goForward()
    await page.getByRole('heading', { level: 1, name: 'Books: Emma' }).waitFor()

    await page.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click()
    await page.locator('.banner-slot [role=status]').filter({ hasText: 'Emma was deleted.' }).waitFor()
    expect((await request(`${server.origin}/books/3`)).status).toBe(404)
    expectClean(session, [400])
    await session.context.close()
  })

  it('lists the record\'s recent changes from the feed, and puts new ones on top as they happen', async () => {
    await post('/books', { title: 'Solaris', year: 1960, author: 1 })
    const id = (await request(`${server.origin}/books?title=Solaris`)).body.items[0].id as number
    expect((await request(`${server.origin}/books/${id}`, { method: 'PATCH', json: { year: 1961 } })).status).toBe(200)
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/books/${id}`)
    await page.getByRole('heading', { level: 1, name: 'Books: Solaris' }).waitFor()
    const history = page.locator('section.record-history')
    await history.getByRole('heading', { name: 'Recent changes' }).waitFor()
    const entries = async (): Promise<string[]> => (await history.locator('li .change').allInnerTexts())
    // Newest first; the update names the field it changed (compared with the version before it).
    await poll(entries).toEqual(['Updated: Year', 'Created'])
    expect(await history.locator('li time').first().getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/)

    // An edit on this page, then one made elsewhere: each goes on top as the feed brings it.
    await page.getByRole('button', { name: 'Edit' }).click()
    await page.getByLabel('Title', { exact: true }).fill('Solaris (1961)')
    await page.getByRole('button', { name: 'Save' }).click()
    await poll(entries).toEqual(['Updated: Title', 'Updated: Year', 'Created'])
    expect((await request(`${server.origin}/books/${id}`, { method: 'PATCH', json: { title: 'Solaris', year: 1962 } })).status).toBe(200)
    await poll(entries).toEqual(['Updated: Title, Year', 'Updated: Title', 'Updated: Year', 'Created'])
    // Read again, the page lists the same.
    await page.reload()
    await page.getByRole('heading', { level: 1, name: 'Books: Solaris' }).waitFor()
    await poll(entries).toEqual(['Updated: Title, Year', 'Updated: Title', 'Updated: Year', 'Created'])
    expect(await seriousViolations(page), 'axe-core on a record\'s page with its changes').toEqual([])
    expectClean(session)
    await session.context.close()
  })

  it('offers a reference\'s records by name as its field is typed, and names the one an id picks', async () => {
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/books`)
    await page.locator('tbody tr[data-id="1"]').waitFor()
    const author = page.locator('#add-books-author')
    expect(await author.getAttribute('list')).toBe('add-books-author-options')
    await author.fill('herb')
    await page.locator('#add-books-author-options option[value="1"]').waitFor({ state: 'attached' })
    expect(await page.locator('#add-books-author-options option[value="1"]').textContent()).toBe('Frank Herbert')
    await author.fill('1')
    await poll(async () => await page.locator('#add-books-author-chosen').textContent()).toBe('Frank Herbert')
    await page.locator('#add-books-title').fill('Dune Messiah')
    await page.getByRole('button', { name: 'Add', exact: true }).click()
    await poll(async () => (await request(`${server.origin}/books?title=Dune%20Messiah`)).body.items?.[0]?.author).toBe(1)
    expectClean(session)
    await session.context.close()
  })

  it('says so when the record of a link does not exist', async () => {
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/authors/99`)
    await page.getByText('Authors has no record with id 99.').waitFor()
    expectClean(session, [404])
    await session.context.close()
  })

  it('numbers the pages, and keeps the columns chosen for a collection in this browser', async () => {
    for (let i = 0; i < 45; i++) await post('/tags', { label: `tag ${String(i).padStart(2, '0')}` })
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/tags`)
    await page.locator('tbody tr[data-id="1"]').waitFor()
    const pages = page.getByRole('navigation', { name: 'Pages' })
    await poll(async () => await pages.locator('.page-of').innerText()).toBe('Page 1 of 3')
    await pages.getByRole('button', { name: 'Page 2' }).click()
    await page.locator('tbody tr[data-id="21"]').waitFor()
    await poll(async () => await pages.locator('.page-of').innerText()).toBe('Page 2 of 3')
    await pages.getByRole('button', { name: 'Page 3' }).click()
    await page.locator('tbody tr[data-id="41"]').waitFor()
    expect(await page.locator('tbody tr').count()).toBe(5)
    await pages.getByRole('button', { name: 'Page 1' }).click()
    await page.locator('tbody tr[data-id="1"]').waitFor()

    // The column chooser: Label hidden, and still hidden after a reload; the id stays.
    await page.goto(`${server.origin}/app/books`)
    await page.locator('tbody tr[data-id="1"]').waitFor()
    const chooser = page.locator('details.column-chooser')
    await chooser.locator('summary').click()
    await chooser.getByLabel('Year').uncheck()
    await poll(async () => await page.locator('thead th').allInnerTexts()).not.toContainEqual(expect.stringContaining('Year'))
    await page.reload()
    await page.locator('tbody tr[data-id="1"]').waitFor()
    expect(await page.locator('thead th').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('Title'), expect.stringContaining('Author')]))
    expect(await page.locator('thead th').allInnerTexts()).not.toContainEqual(expect.stringContaining('Year'))
    expect(await page.locator('details.column-chooser summary').innerText()).toBe('Columns (3 of 4)')
    // Other collections keep all of theirs.
    await page.goto(`${server.origin}/app/authors`)
    await page.locator('tbody tr[data-id="1"]').waitFor()
    expect(await page.locator('thead th').allInnerTexts()).toContainEqual(expect.stringContaining('Born'))
    expectClean(session)
    await session.context.close()
  })
})
