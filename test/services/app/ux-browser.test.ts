import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { CHROMIUM, DESKTOP, expectClean, hasChromium, launch, openSession, PHONE, poll, type Session } from './browser.js'
import { memoryStores, type Stores } from '../../helpers/built-ins.js'

const V2 = { accept: 'application/vnd.rqs.v2+json' }
const LONG = 'A'.repeat(120)
const title = hasChromium ? 'the data browser never surprises (issue 22)' : `issue 22 browser tests: SKIPPED because ${CHROMIUM} is missing`

/** Long tasks (> 50 ms) the page's main thread ran, collected in window.rqsLongTasks. */
const LONG_TASKS = `{
  window.rqsLongTasks = []
  new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.rqsLongTasks.push(entry.duration) }).observe({ type: 'longtask', buffered: true })
}`

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  let stores: Stores
  const sessions: Session[] = []
  const open = async (options?: Parameters<typeof openSession>[1]): Promise<Session> => {
    const session = await openSession(browser, options)
    sessions.push(session)
    return session
  }
  const add = async (firstName: string, lastName: string, age: number): Promise<void> => {
    const res = await request(`${server.origin}/students`, { method: 'POST', headers: V2, json: { firstName, lastName, age } })
    expect(res.status).toBe(201)
  }

  beforeAll(async () => { browser = await launch() })
  afterAll(async () => { await browser?.close() })
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.context.close()
    await server?.close()
  })
  const start = async (): Promise<void> => {
    stores = memoryStores()
    server = await startServer({}, { stores })
  }

  it('one list read per page load (with the feed on); Edit, Escape and the delete dialog read no list', async () => {
    await start()
    await add('Ada', 'Lovelace', 36)
    const session = await open()
    const { page } = session
    const listReads = (): string[] => session.requests.filter((r) => /^GET \/students\?/.test(r))
    await page.goto(`${server.origin}/app/students`)
    await page.locator('tbody tr[data-id="0"]').waitFor()
    await page.locator('.live.on').waitFor()
    await page.waitForTimeout(600)
    expect(listReads()).toHaveLength(1)
    await page.getByRole('button', { name: 'Edit Ada Lovelace' }).click()
    await page.locator('tr.editing input').first().waitFor()
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Delete Ada Lovelace' }).click()
    await page.getByRole('dialog').waitFor()
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.waitForTimeout(600)
    expect(listReads()).toHaveLength(1)
    expectClean(session)
  })

  it('a 120-character unbroken value never widens the page, at 1280 px and on a phone; Edit and Delete stay on screen', async () => {
    await start()
    await add(LONG, LONG, 30)
    for (const viewport of [DESKTOP, PHONE]) {
      const session = await open({ viewport })
      const { page } = session
      await page.goto(`${server.origin}/app/students`)
      await page.locator('tbody tr[data-id="0"]').waitFor()
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${viewport.width} px`).toBeLessThanOrEqual(viewport.width)
      const box = await page.getByRole('button', { name: /^Delete / }).boundingBox()
      expect((box?.x ?? Infinity) + (box?.width ?? 0)).toBeLessThanOrEqual(viewport.width)
      await page.screenshot({ path: `/tmp/appux/long-${viewport.width}.png`, fullPage: true })
      expectClean(session)
    }
  })

  it('the view state is in the URL: a shared link shows it, sorting adds a history entry, Back restores the view', async () => {
    await start()
    await add('Ada', 'Lovelace', 36)
    await add('Alan', 'Turing', 41)
    await add('Tim', 'Young', 12)
    const session = await open()
    const { page } = session
    await page.goto(`${server.origin}/app/students?sort=-age&age[gte]=18`)
    await poll(async () => await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id))).toEqual(['1', '0'])
    expect(await page.getByLabel('Age at least').inputValue()).toBe('18')
    await page.getByRole('button', { name: /^First name/ }).click()
    await poll(() => new URL(page.url()).search).toBe('?sort=firstName&age[gte]=18')
    await page.goBack()
    await poll(() => new URL(page.url()).search).toBe('?sort=-age&age[gte]=18')
    await poll(async () => await page.locator('tbody tr').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.id))).toEqual(['1', '0'])
    // The filter row: a text filter with the API's contains.
    await page.getByLabel('Last name contains').fill('tur')
    await poll(() => new URL(page.url()).search).toContain('lastName[contains]=tur')
    await poll(async () => await page.locator('tbody tr').count()).toBe(1)
    // A change from the feed reads the page again: the URL keeps the view shown now.
    await page.locator('.live.on').waitFor()
    await add('Alice', 'Turner', 30)
    await poll(async () => await page.locator('tbody tr').count()).toBe(2)
    expect(new URL(page.url()).search).toBe('?sort=-age&age[gte]=18&lastName[contains]=tur')
    expectClean(session)
  })

  it('messages beside fields use the field\'s label, in the page\'s language', async () => {
    await start()
    const session = await open()
    const { page } = session
    await page.goto(`${server.origin}/app/students`)
    await page.getByText('No records yet').waitFor()
    await page.getByLabel('First name', { exact: true }).fill('   ')
    await page.getByLabel('Last name', { exact: true }).fill('Lovelace')
    await page.getByLabel('Age', { exact: true }).fill('-1')
    await page.getByRole('button', { name: 'Add student' }).click()
    await page.getByText('First name is required.').waitFor()
    await page.getByText('Age must be a whole number from 0 to 2,147,483,647.').waitFor()
    await page.getByRole('button', { name: 'Deutsch' }).click()
    await page.getByRole('button', { name: 'Studierende hinzufügen' }).click()
    await page.getByText('Vorname ist erforderlich.').waitFor()
    await page.getByText('Alter muss eine ganze Zahl von 0 bis 2.147.483.647 sein.').waitFor()
    expectClean(session, [400])
  })

  it('polish: the add form above the list, column widths that do not jump, centred cells, the kept name marked, a banner that moves nothing', async () => {
    await start()
    await add('Ada', 'Lovelace', 36)
    expect((await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'Ada', city: 'London', postalCode: 'W1' } })).status).toBe(201)
    const session = await open()
    const { page } = session
    await page.goto(`${server.origin}/app/students`)
    await page.locator('tbody tr[data-id="0"]').waitFor()
    const widths = async (): Promise<number[]> => await page.locator('thead th').evaluateAll((cells) => cells.map((c) => Math.round(c.getBoundingClientRect().width)))
    const tableTop = async (): Promise<number> => await page.locator('table.records').evaluate((t) => Math.round(t.getBoundingClientRect().top + window.scrollY))
    const normal = await widths()
    // The form comes before the table: reachable without scrolling past the rows.
    expect(await page.evaluate<boolean>("!!(document.querySelector('form').compareDocumentPosition(document.querySelector('table.records')) & Node.DOCUMENT_POSITION_FOLLOWING)")).toBe(true)
    expect(await page.locator('tbody td').first().evaluate((td) => getComputedStyle(td).verticalAlign)).toBe('middle')
    await page.getByRole('button', { name: 'Edit Ada Lovelace' }).click()
    await page.locator('tr.editing input').first().waitFor()
    expect(await widths()).toEqual(normal)
    // Escape reaches the row once its first input has the focus (set just after the row renders).
    await page.waitForFunction("document.activeElement !== null && document.activeElement.closest('tr.editing') !== null")
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Edit Ada Lovelace' }).waitFor()
    const top = await tableTop()
    await page.getByRole('button', { name: 'Edit Ada Lovelace' }).click()
    await page.locator('#edit-students-0-age').fill('37')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Ada Lovelace was saved.').waitFor()
    expect(await tableTop()).toBe(top) // the banner floats: nothing moved
    await page.getByLabel('Search').fill('nobody')
    await page.getByText('Nothing matches').waitFor()
    expect(await widths()).toEqual(normal)

    await page.getByRole('link', { name: 'Addresses' }).click()
    await page.locator('tbody tr[data-id="1"]').waitFor()
    await page.getByRole('button', { name: 'Edit Ada, London' }).click()
    await page.locator('tr.editing .kept').waitFor()
    expect(await page.locator('tr.editing .kept').innerText()).toContain('not editable')
    expect(new URL(page.url()).pathname).toBe('/app/addresses')
    await page.goBack()
    await page.getByRole('heading', { level: 1, name: 'Students' }).waitFor()
    expectClean(session)
  })

  it('50 000 changes from the feed: one refresh of the visible page, no long task per change (the longest is printed: ≤ 100 ms when quiet)', async () => {
    await start()
    const session = await open()
    const { page } = session
    await page.addInitScript(LONG_TASKS)
    await page.goto(`${server.origin}/app/students`)
    await page.getByText('No records yet').waitFor()
    await page.locator('.live.on').waitFor()
    const before = session.requests.length
    await page.evaluate('window.rqsLongTasks.length = 0')
    async function * batches (): AsyncIterable<Array<{ id: number, firstName: string, lastName: string, age: number }>> {
      for (let b = 0; b < 50; b++) yield Array.from({ length: 1000 }, (_, i) => ({ id: b * 1000 + i, firstName: `F${b * 1000 + i}`, lastName: 'L', age: 20 }))
    }
    await stores.students.importAll(batches() as never)
    await poll(async () => await page.locator('.pager .count').textContent()).toBe('1–20 of 50,000')
    await page.waitForTimeout(500)
    const tasks = await page.evaluate<number[]>('window.rqsLongTasks')
    // The figure (≤ 100 ms on a quiet machine) is printed for the record; the gate is loose on purpose: a
    // test must not fail on wall-clock time on a loaded 2-core machine, yet folding is what keeps it far
    // below one change at a time (≈ 15 s for this burst before it).
    process.stdout.write(`feed burst of 50 000 changes: long tasks ${tasks.length === 0 ? 'none' : tasks.map((t) => `${Math.round(t)} ms`).join(', ')}\n`)
    expect(Math.max(0, ...tasks), `long tasks: ${tasks.join(', ')}`).toBeLessThan(1000)
    const reads = session.requests.slice(before).filter((r) => /^GET \/students\?/.test(r))
    expect(reads.length).toBeLessThanOrEqual(3)
    expectClean(session)
  })
})
