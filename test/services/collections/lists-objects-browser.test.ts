import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { CHROMIUM, expectClean, hasChromium, launch, openSession, poll } from '../app/browser.js'
import { declarationFiles } from './fixture.js'
import { PLACES } from './lists-objects.suite.js'

/**
 * Issue 29, items 7 and 8, in the web app: a list is a tag input (values
 * separated by commas), a nested object a fieldset of its fields by dotted
 * path, and what the page adds is what the API reads.
 */
const files = declarationFiles()
const title = hasChromium ? 'lists and nested objects in the web app' : `lists and nested objects in the web app: SKIPPED because ${CHROMIUM} is missing (apt-get install chromium)`

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  beforeAll(async () => {
    browser = await launch()
    server = await startServer({ collections: fromFile(files.write('places.json', PLACES), '--collections') })
    expect((await request(`${server.origin}/places`, { method: 'POST', json: { name: 'Fjord', tags: ['water', 'cold'], address: { city: 'Oslo', zip: 150 } } })).status).toBe(201)
  })
  afterAll(async () => {
    await server?.close()
    await browser?.close()
  })

  it('shows a list and an object\'s fields, and adds a record from a tag input and a fieldset', async () => {
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/places`)
    await page.locator('tbody tr[data-id="1"]').waitFor()
    expect(await page.locator('thead th').allInnerTexts()).toEqual(expect.arrayContaining([expect.stringContaining('Tags'), expect.stringContaining('Address › City')]))
    expect(await page.locator('tbody tr[data-id="1"]').innerText()).toMatch(/Fjord[\s\S]*water, cold[\s\S]*Oslo[\s\S]*150/)

    const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Add', exact: true }) })
    await form.getByLabel('Name', { exact: true }).fill('Harbour')
    await form.getByLabel('Tags', { exact: true }).fill('water, old')
    await form.getByLabel('Address › City', { exact: true }).fill('Bergen')
    await form.getByLabel('Address › Zip', { exact: true }).fill('5003')
    await form.getByRole('button', { name: 'Add', exact: true }).click()
    await page.locator('tbody tr[data-id="2"]').waitFor()
    await poll(async () => (await request(`${server.origin}/places/2`)).body).toEqual({ id: 2, name: 'Harbour', tags: ['water', 'old'], address: { city: 'Bergen', zip: 5003 } })
    expectClean(session)
    await session.context.close()
  })
})
