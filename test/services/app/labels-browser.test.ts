import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { checkCollections } from '../../../src/services/collections/declare.js'
import { CHROMIUM, expectClean, hasChromium, launch, openSession, poll, seriousViolations } from './browser.js'

/**
 * A reference shown by its target's label field (`"x-label"`, here not the
 * first text field) in list cells, on record pages, in the picker and in the
 * back-relations, linking to the target; the collection's description under
 * its title; the columns chosen kept in the URL.
 */
const DECLARATIONS = {
  authors: {
    description: 'Who wrote the books',
    'x-label': 'name',
    schema: { type: 'object', properties: { code: { type: 'string' }, name: { type: 'string' } }, required: ['code'] }
  },
  books: {
    description: 'Books on the shelf',
    schema: {
      type: 'object',
      properties: { title: { type: 'string' }, year: { type: 'integer' }, author: { type: 'integer', 'x-references': 'authors' } },
      required: ['title', 'author']
    }
  }
}

const title = hasChromium ? 'the app\'s labels, descriptions and columns in the URL' : `the app's labels: SKIPPED because ${CHROMIUM} is missing`

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  const post = async (path: string, json: unknown): Promise<void> => {
    expect((await request(`${server.origin}${path}`, { method: 'POST', json })).status, path).toBe(201)
  }
  beforeAll(async () => {
    browser = await launch()
    server = await startServer({ collections: { declared: checkCollections(DECLARATIONS, 'test') } })
    await post('/authors', { code: 'FH', name: 'Frank Herbert' })
    await post('/authors', { code: 'JA', name: 'Jane Austen' })
    await post('/books', { title: 'Dune', year: 1965, author: 1 })
    await post('/books', { title: 'Emma', year: 1815, author: 2 })
    await post('/books', { title: 'Children of Dune', year: 1976, author: 1 })
  })
  afterAll(async () => {
    await server?.close()
    await browser?.close()
  })

  it('shows a reference by the target\'s label in the list, its record page, the picker and the back-relations, each a link to the target', async () => {
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/books`)
    const row = page.locator('tbody tr[data-id="1"]')
    await row.waitFor()
    const link = row.getByRole('link', { name: 'Frank Herbert' })
    await poll(async () => await link.count()).toBe(1)
    expect(await link.getAttribute('href')).toBe('/app/authors/1')
    expect(await page.locator('tbody tr[data-id="2"]').getByRole('link', { name: 'Jane Austen' }).count()).toBe(1)
    // The labels came with the page (expand): no request per row, nor per author.
    expect(session.requests.filter((r) => r.startsWith('GET /authors'))).toEqual([])

    // The picker names the records it offers, and the one an id picks, by their label.
    const author = page.locator('#add-books-author')
    await author.fill('jane')
    await page.locator('#add-books-author-options option[value="2"]').waitFor({ state: 'attached' })
    expect(await page.locator('#add-books-author-options option[value="2"]').textContent()).toBe('Jane Austen')
    await author.fill('1')
    await poll(async () => await page.locator('#add-books-author-chosen').textContent()).toBe('Frank Herbert')

    // The record page: the reference by label, linking to the author's page, whose back-relations name the books by theirs.
    await page.goto(`${server.origin}/app/books/1`)
    const fields = page.locator('dl.record-fields')
    await poll(async () => await fields.innerText()).toMatch(/Author\s+Frank Herbert/)
    await fields.getByRole('link', { name: 'Frank Herbert' }).click()
    await page.getByRole('heading', { level: 1, name: 'Authors: Frank Herbert' }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/app/authors/1')
    await poll(async () => await page.locator('.back-relations').innerText()).toMatch(/Books \(Author\): 2[\s\S]*Dune[\s\S]*Children of Dune/)
    await page.locator('.back-relations').getByRole('link', { name: 'Children of Dune' }).click()
    await page.getByRole('heading', { level: 1, name: 'Books: Children of Dune' }).waitFor()
    expectClean(session)
    await session.context.close()
  })

  it('says the collection\'s description under its title', async () => {
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/authors`)
    const heading = page.getByRole('heading', { level: 1, name: 'Authors' })
    await heading.waitFor()
    const description = page.locator('#description-authors')
    expect(await description.innerText()).toBe('Who wrote the books')
    expect(await heading.getAttribute('aria-describedby')).toBe('description-authors')
    // It follows the title at once.
    expect(await page.evaluate<boolean>("document.getElementById('heading-authors').nextElementSibling === document.getElementById('description-authors')")).toBe(true)
    await page.getByRole('navigation').getByRole('link', { name: 'Books' }).click()
    await page.getByRole('heading', { level: 1, name: 'Books' }).waitFor()
    await poll(async () => await page.locator('#description-books').innerText()).toBe('Books on the shelf')
    expect(await seriousViolations(page), 'axe-core with a description').toEqual([])
    expectClean(session)
    await session.context.close()
  })

  it('opens a link with the columns it names, puts a choice of columns in the URL, and Back and Forward restore them', async () => {
    const session = await openSession(browser)
    const { page } = session
    const headers = async (): Promise<string[]> => (await page.locator('thead th').allInnerTexts()).map((h) => h.trim()).filter((h) => /^(Title|Year|Author)/.test(h)).map((h) => h.replace(/\W+$/, ''))
    await page.goto(`${server.origin}/app/books?sort=title&columns=title,author`)
    await page.locator('tbody tr[data-id="1"]').waitFor()
    await poll(headers).toEqual(['Title', 'Author'])
    expect(await page.locator('details.column-chooser summary').innerText()).toBe('Columns (2 of 3)')

    // A choice: a new entry in the history, its columns in the URL, the query kept.
    const chooser = page.locator('details.column-chooser')
    await chooser.locator('summary').click()
    await chooser.getByLabel('Author').uncheck()
    await poll(headers).toEqual(['Title'])
    await poll(() => new URL(page.url()).search).toBe('?sort=title&columns=title')
    await page.goBack()
    await poll(headers).toEqual(['Title', 'Author'])
    expect(new URL(page.url()).search).toBe('?sort=title&columns=title,author')
    await page.goForward()
    await poll(headers).toEqual(['Title'])

    // Without columns in the URL, the choice this browser made last; a link from elsewhere, its own.
    await page.goto(`${server.origin}/app/books`)
    await page.locator('tbody tr[data-id="1"]').waitFor()
    await poll(headers).toEqual(['Title'])
    const other = await openSession(browser)
    await other.page.goto(`${server.origin}/app/books?columns=year`)
    await other.page.locator('tbody tr[data-id="1"]').waitFor()
    await poll(async () => (await other.page.locator('thead th').allInnerTexts()).map((h) => h.trim()).filter((h) => /^(Title|Year|Author)/.test(h)).map((h) => h.replace(/\W+$/, ''))).toEqual(['Year'])
    // Showing all again is a choice too: the URL names every column, so the link shows them all anywhere.
    const otherChooser = other.page.locator('details.column-chooser')
    await otherChooser.locator('summary').click()
    await otherChooser.getByRole('button', { name: 'Show all' }).click()
    await poll(() => new URL(other.page.url()).search).toBe('?columns=title,year,author')
    expectClean(session)
    expectClean(other)
    await other.context.close()
    await session.context.close()
  })
})
