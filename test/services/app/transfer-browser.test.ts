import { readFile } from 'node:fs/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { CHROMIUM, hasChromium, launch, openSession, poll, type Session } from './browser.js'

/**
 * Issue 22, item 8: Export and Import buttons in the app. Export saves the
 * server's CSV of what the view shows (its filters and sort); Import writes
 * the records of a CSV file through the API's bulk create (all or nothing)
 * and says what it added, or why it refused the file.
 */
const V2 = { accept: 'application/vnd.rqs.v2+json' }
const title = hasChromium ? 'CSV export and import in the web app' : `CSV export and import in the web app: SKIPPED because ${CHROMIUM} is missing`

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  const sessions: Session[] = []
  beforeAll(async () => {
    browser = await launch()
    server = await startServer()
    for (const [firstName, age] of [['Ada', 36], ['Alan', 41], ['Grace', 85]] as const) {
      await request(`${server.origin}/students`, { method: 'POST', headers: V2, json: { firstName, lastName: 'X, Y', age } })
    }
  })
  afterAll(async () => {
    await server?.close()
    await browser?.close()
  })
  afterEach(async () => { for (const s of sessions.splice(0)) await s.context.close() })

  it('exports the view (its filter and sort) as the server\'s CSV', async () => {
    const session = await openSession(browser, { acceptDownloads: true })
    sessions.push(session)
    const { page } = session
    await page.goto(`${server.origin}/app/students?sort=-age&age[gte]=40`)
    await page.locator('tbody tr[data-id="2"]').waitFor()
    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Export CSV' }).click()
    const file = await download
    expect(file.suggestedFilename()).toBe('students.csv')
    expect(await readFile(await file.path(), 'utf8')).toBe('id,firstName,lastName,age\r\n2,Grace,"X, Y",85\r\n1,Alan,"X, Y",41\r\n')
    await poll(async () => await page.getByText('2 records exported.').count()).toBe(1)
  })

  it('imports a CSV file all or nothing, and says why it refused it; then the fixed file', async () => {
    const session = await openSession(browser)
    sessions.push(session)
    const { page } = session
    await page.goto(`${server.origin}/app/students`)
    await page.locator('tbody tr[data-id="0"]').waitFor()
    const csv = 'firstName,lastName,age\r\nKatherine,Johnson,101\r\n,Nobody,3\r\n"Mary ""M""",Jackson,83\r\n'
    await page.locator('.transfer input[type=file]').setInputFiles({ name: 'more.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    // The import shows its preview first (issue 37) and writes when told to.
    await page.getByRole('button', { name: 'Import 3 records' }).click()
    // One bulk create, all or nothing: the line the server refuses keeps the others out too.
    await poll(async () => await page.locator('.transfer-summary').textContent()).toMatch(/^0 records added; 3 refused\. Nothing was stored: .* Line 3: .*(First name|firstName)/)
    expect(((await request(`${server.origin}/students`, { headers: V2 })).body as unknown[]).length).toBe(3)
    await page.locator('.transfer input[type=file]').setInputFiles({ name: 'more.csv', mimeType: 'text/csv', buffer: Buffer.from(csv.replace(',Nobody,3\r\n', '')) })
    await page.getByRole('button', { name: 'Import 2 records' }).click()
    await poll(async () => await page.locator('.transfer-summary').textContent()).toMatch(/^2 records added; 0 refused\./)
    const all = (await request(`${server.origin}/students`, { headers: V2 })).body as Array<{ firstName: string }>
    expect(all.map((s) => s.firstName)).toEqual(['Ada', 'Alan', 'Grace', 'Katherine', 'Mary "M"'])
  })
})
