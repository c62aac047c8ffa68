import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { CHROMIUM, expectClean, hasChromium, launch, openSession, poll } from '../app/browser.js'

/**
 * The web app's schema editor: a collection created in the page (a field
 * of each of two kinds, with a constraint), its view appearing without a
 * reload, then a field added with a default: the plan previewed, applied
 * against the version read, and the history showing both versions.
 */
const title = hasChromium ? 'the schema editor of the web app' : `the schema editor of the web app: SKIPPED because ${CHROMIUM} is missing (apt-get install chromium)`

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  beforeAll(async () => {
    browser = await launch()
    server = await startServer({ collections: { declared: [], api: true } })
  })
  afterAll(async () => {
    await server?.close()
    await browser?.close()
  })

  it('creates a collection and adds a field, previewing the plan; the new view appears without a reload', async () => {
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/`)
    await page.getByRole('button', { name: 'Schema' }).click()
    const editor = page.getByRole('region', { name: 'Collections' })
    await editor.getByLabel('Name', { exact: true }).first().fill('books')
    const first = editor.getByRole('group', { name: 'Field 1' })
    await first.getByLabel('Name', { exact: true }).fill('title')
    await first.getByLabel('Required').check()
    await first.getByLabel('maxLength').fill('200')
    await editor.getByRole('button', { name: 'Add field' }).click()
    const second = editor.getByRole('group', { name: 'Field 2' })
    await second.getByLabel('Name', { exact: true }).fill('year')
    await second.getByLabel('Kind').selectOption('integer')
    await second.getByLabel('minimum', { exact: true }).fill('0')
    await editor.getByRole('button', { name: 'Preview the plan' }).click()
    await editor.getByRole('region', { name: 'Plan' }).getByText('title, year: indexed').waitFor()
    await editor.getByRole('button', { name: 'Apply' }).click()
    await editor.getByRole('status').getByText('Applied: version 1').waitFor()
    await poll(async () => (await request(`${server.origin}/collections/books`)).body.declaration).toEqual({
      ids: 'sequence',
      schema: { type: 'object', properties: { title: { type: 'string', maxLength: 200 }, year: { type: 'integer', minimum: 0 } }, required: ['title'] }
    })
    // The view of the new collection, without a reload.
    await page.getByRole('navigation').getByRole('link', { name: 'Books' }).waitFor()
    expect((await request(`${server.origin}/books`, { method: 'POST', json: { title: 'Dune', year: 1965 } })).status).toBe(201)

    // A field added with a default: the plan says every record held gets it.
    await editor.getByRole('button', { name: 'Add field' }).click()
    const third = editor.getByRole('group', { name: 'Field 3' })
    await third.getByLabel('Name', { exact: true }).fill('pages')
    await third.getByLabel('Kind').selectOption('integer')
    await third.getByLabel('Default').fill('100')
    await editor.getByRole('button', { name: 'Preview the plan' }).click()
    const plan = editor.getByRole('region', { name: 'Plan' })
    await plan.getByText('pages: added (100)').waitFor()
    expect(await plan.getByRole('heading').innerText()).toContain('1 records held')
    await editor.getByRole('button', { name: 'Apply' }).click()
    await editor.getByRole('status').getByText('Applied: version 2').waitFor()
    await poll(async () => (await request(`${server.origin}/books/1`)).body).toEqual({ id: 1, title: 'Dune', year: 1965, pages: 100 })
    await editor.locator('.schema-history li').nth(1).waitFor()
    expect(await editor.locator('.schema-history li').allInnerTexts()).toEqual([expect.stringMatching(/^Version 1 .* create$/), expect.stringMatching(/^Version 2 .* change$/)])
    expectClean(session)
    await session.context.close()
  })

  it('chooses the field that labels a record, kept when the field is renamed', async () => {
    expect((await request(`${server.origin}/collections`, { method: 'POST', json: { name: 'authors', schema: { type: 'object', properties: { code: { type: 'string' }, name: { type: 'string' }, born: { type: 'integer' } }, required: ['code'] } } })).status).toBe(201)
    const listed = async (): Promise<unknown> => ((await request(`${server.origin}/collections`)).body.items as Array<{ name: string, label: string }>).find((c) => c.name === 'authors')?.label
    expect(await listed()).toBe('code')
    expect((await request(`${server.origin}/authors`, { method: 'POST', json: { code: 'FH', name: 'Frank Herbert' } })).status).toBe(201)
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/`)
    await page.getByRole('button', { name: 'Schema' }).click()
    const editor = page.getByRole('region', { name: 'Collections' })
    await editor.getByLabel('Collection').selectOption('authors')
    await editor.getByRole('group', { name: 'Field 2' }).getByLabel('Name', { exact: true }).waitFor()
    const label = editor.getByLabel('Label field')
    // The text fields only, and the server's rule.
    expect(await label.locator('option').allInnerTexts()).toEqual(['First required text field', 'code', 'name'])
    await label.selectOption({ label: 'name' })
    await editor.getByRole('button', { name: 'Apply' }).click()
    await editor.getByRole('status').getByText('Applied: version 2').waitFor()
    await poll(listed).toBe('name')
    // Renamed in the editor: the label follows the field.
    await poll(async () => await editor.getByRole('group', { name: 'Field 2' }).getByLabel('Name', { exact: true }).inputValue()).toBe('name')
    await editor.getByRole('group', { name: 'Field 2' }).getByLabel('Name', { exact: true }).fill('fullName')
    await editor.getByRole('button', { name: 'Apply' }).click()
    await editor.getByRole('status').getByText('Applied: version 3').waitFor()
    await poll(listed).toBe('fullName')
    expect((await request(`${server.origin}/collections/authors`)).body.declaration).toMatchObject({ 'x-label': 'fullName' })
    // The open page names the records by the label field now, without a reload.
    await page.getByRole('navigation').getByRole('link', { name: 'Authors' }).click()
    await page.getByRole('heading', { level: 1, name: 'Authors' }).waitFor()
    await page.locator('tbody tr[data-id="1"]').getByRole('link', { name: '1' }).click()
    await page.getByRole('heading', { level: 1, name: 'Authors: Frank Herbert' }).waitFor()
    expectClean(session)
    await session.context.close()
  })
})
