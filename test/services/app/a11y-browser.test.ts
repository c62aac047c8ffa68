import { mkdir } from 'node:fs/promises'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { CHROMIUM, DESKTOP, expectClean, focusedId, hasChromium, launch, openSession, PHONE, poll, seriousViolations, type Session } from './browser.js'

const V2 = { accept: 'application/vnd.rqs.v2+json' }
/** Set RQS_APP_SCREENSHOTS=docs/screenshots to refresh the README's screenshots. */
const screenshotDir = process.env.RQS_APP_SCREENSHOTS

const STUDENTS = [
  ['Ada', 'Lovelace', 36], ['Alan', 'Turing', 41], ['Grace', 'Hopper', 85], ['Katherine', 'Johnson', 101],
  ['Edsger', 'Dijkstra', 72], ['Barbara', 'Liskov', 84], ['Donald', 'Knuth', 86], ['Margaret', 'Hamilton', 88]
] as const
const ADDRESSES = [
  ['Ada Lovelace', 'London', 'W1J 7NT'], ['Konrad Zuse', 'Berlin', '10963'], ['Grace Hopper', 'Arlington', '22201'],
  ['Niklaus Wirth', 'Zürich', '8092'], ['Emmy Noether', 'Erlangen', '91054']
] as const

async function seed (origin: string): Promise<void> {
  for (const [firstName, lastName, age] of STUDENTS) {
    expect((await request(`${origin}/students`, { method: 'POST', headers: V2, json: { firstName, lastName, age } })).status).toBe(201)
  }
  for (const [name, city, postalCode] of ADDRESSES) {
    expect((await request(`${origin}/addresses`, { method: 'POST', json: { name, city, postalCode } })).status).toBe(201)
  }
}

/** A long unbroken value in each view (issue 22): the table must still fit and read well. */
async function seedLong (origin: string): Promise<void> {
  expect((await request(`${origin}/students`, { method: 'POST', headers: V2, json: { firstName: LONG, lastName: 'Long', age: 30 } })).status).toBe(201)
  expect((await request(`${origin}/addresses`, { method: 'POST', json: { name: LONG, city: 'Kiel', postalCode: '24103' } })).status).toBe(201)
}

const LONG = 'W'.repeat(120)

/** Desktop: the whole page; phone: the first screen, as a person sees it. */
async function shoot (page: Page, name: string): Promise<void> {
  if (screenshotDir === undefined || name.includes('dark')) return
  await mkdir(screenshotDir, { recursive: true })
  // No caret or highlight caught mid-animation.
  await page.screenshot({ path: `${screenshotDir}/${name}.png`, fullPage: !name.endsWith('phone'), animations: 'disabled', caret: 'hide' })
}

const title = hasChromium ? 'the web application: accessibility and small screens' : `the web application: accessibility and small screens: SKIPPED because ${CHROMIUM} is missing (apt-get install chromium)`

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  const sessions: Session[] = []
  const open = async (viewport = DESKTOP, colorScheme: 'light' | 'dark' = 'light'): Promise<Session> => {
    const session = await openSession(browser, { viewport, colorScheme, ...(viewport === PHONE ? { isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}) })
    sessions.push(session)
    return session
  }

  beforeAll(async () => { browser = await launch() })
  afterAll(async () => { await browser?.close() })
  beforeEach(async () => {
    server = await startServer()
    await seed(server.origin)
  })
  afterEach(async () => {
    for (const session of sessions.splice(0)) await session.context.close()
    await server?.close()
  })

  for (const [name, viewport, colorScheme] of [['desktop', DESKTOP, 'light'], ['phone', PHONE, 'light'], ['desktop-dark', DESKTOP, 'dark']] as const) {
    it(`axe-core finds no serious or critical violation in either view (${name}): the lists, an edit row with a message, the delete dialog, the token panel`, async () => {
      await seedLong(server.origin)
      const session = await open(viewport, colorScheme)
      const { page } = session
      await page.goto(`${server.origin}/app/#/students`)
      await page.locator('tbody tr[data-id="7"]').waitFor()
      expect(await seriousViolations(page)).toEqual([])
      await shoot(page, `students-${name}`)

      // An edit row showing the service's message next to its field.
      await page.getByRole('button', { name: 'Edit Ada Lovelace' }).click()
      const age = page.locator('#edit-students-0-age')
      await poll(() => age.getAttribute('readonly')).toBeNull()
      await age.fill('-1')
      await page.getByRole('button', { name: 'Save' }).click()
      await poll(() => age.getAttribute('aria-invalid')).toBe('true')
      expect(await page.locator('#edit-students-0-age-error').innerText()).toBe('Age must be a whole number from 0 to 2,147,483,647.')
      expect(await seriousViolations(page)).toEqual([])
      await age.press('Escape')

      await page.getByRole('button', { name: 'Delete Alan Turing' }).click()
      await page.getByRole('dialog').waitFor()
      expect(await seriousViolations(page)).toEqual([])
      await page.keyboard.press('Escape')

      await page.getByRole('link', { name: 'Addresses' }).click()
      await page.locator('tbody tr[data-id="5"]').waitFor()
      await poll(() => focusedId(page)).toBe('heading-addresses') // the view's heading, for screen readers
      expect(await seriousViolations(page)).toEqual([])
      await shoot(page, `addresses-${name}`)

      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width)

      // In German too (other words, other widths), both views, the long values among the rows.
      await page.getByRole('button', { name: 'Deutsch' }).click()
      await page.getByRole('heading', { level: 1, name: 'Adressen' }).waitFor()
      expect(await seriousViolations(page)).toEqual([])
      await page.getByRole('link', { name: 'Studierende' }).click()
      await page.getByRole('heading', { level: 1, name: 'Studierende' }).waitFor()
      await page.locator(`tbody tr td:has-text("${LONG}")`).first().waitFor()
      expect(await seriousViolations(page)).toEqual([])
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width)
      await shoot(page, `students-de-${name}`)

      // The token panel (opened by hand once a token is kept).
      await page.evaluate("sessionStorage.setItem('rqs.token', 'a-token')")
      await page.reload()
      await page.getByRole('button', { name: 'Token', exact: true }).click()
      await page.getByRole('region', { name: 'Zugriffstoken' }).waitFor()
      expect(await seriousViolations(page)).toEqual([])

      // The scan does see a violation when there is one.
      await page.evaluate("document.querySelector('main').append(document.createElement('input'))")
      expect((await seriousViolations(page)).join('\n')).toContain('critical label:')

      expectClean(session, [400])
    }, 60_000) // nine scans, in two languages, on a shared machine
  }

  it('on a phone-sized screen every row is a labelled card, nothing scrolls sideways, and adding, sorting and editing work', async () => {
    const session = await open(PHONE)
    const { page } = session
    await page.goto(`${server.origin}/app/`)
    await page.locator('tbody tr[data-id="7"]').waitFor()
    const overflow = async (): Promise<number> => await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')
    expect(await overflow()).toBeLessThanOrEqual(0)
    // Each cell says which column it is.
    expect(await page.evaluate<string>('getComputedStyle(document.querySelector(\'tbody tr[data-id="0"] td:nth-child(2)\'), "::before").content')).toBe('"First name"')
    // The column headers are hidden, so sorting is a select.
    await page.getByLabel('Sort by').selectOption('-age')
    await poll(() => page.locator('tbody tr').first().getAttribute('data-id')).toBe('3') // Katherine Johnson, 101

    await page.getByLabel('First name', { exact: true }).fill('Tim')
    await page.getByLabel('Last name', { exact: true }).fill('Berners-Lee')
    await page.getByLabel('Age', { exact: true }).fill('69')
    await page.getByRole('button', { name: 'Add student' }).tap()
    await page.locator('tbody tr[data-id="8"]').waitFor()
    await page.getByRole('button', { name: 'Edit Tim Berners-Lee' }).tap()
    const age = page.locator('#edit-students-8-age')
    await poll(() => age.getAttribute('readonly')).toBeNull()
    await age.fill('70')
    await page.getByRole('button', { name: 'Save' }).tap()
    await poll(() => page.getByRole('status').first().innerText()).toBe('Tim Berners-Lee was saved.')
    expect((await request(`${server.origin}/students/8`, { headers: V2 })).body.age).toBe(70)
    expect(await overflow()).toBeLessThanOrEqual(0)
    expectClean(session)
  })

  it('can be used with the keyboard alone: skip link, views, sorting, adding and editing', async () => {
    const session = await open()
    const { page } = session
    await page.goto(`${server.origin}/app/`)
    await page.locator('tbody tr[data-id="7"]').waitFor()
    await page.keyboard.press('Tab')
    expect(await page.evaluate<string>('document.activeElement?.textContent')).toBe('Skip to content')
    await page.keyboard.press('Enter')
    await poll(() => focusedId(page)).toBe('main')

    // Sort by last name from its column header.
    await page.locator('th button', { hasText: 'Last name' }).focus()
    await page.keyboard.press('Enter')
    await poll(() => page.locator('tbody tr').first().getAttribute('data-id')).toBe('4') // Dijkstra

    // Add: Tab through the form, Enter submits.
    await page.getByLabel('First name', { exact: true }).focus()
    await page.keyboard.type('Tim')
    await page.keyboard.press('Tab')
    await page.keyboard.type('Berners-Lee')
    await page.keyboard.press('Tab')
    await page.keyboard.type('69')
    await page.keyboard.press('Enter')
    await poll(() => page.getByRole('status').first().innerText()).toBe('Tim Berners-Lee was added.')

    // Every control shows where the focus is (a visible outline).
    await page.getByRole('button', { name: 'Edit Tim Berners-Lee' }).focus()
    await page.keyboard.press('Shift+Tab')
    await page.keyboard.press('Tab')
    const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')
    expect(outline).toBe('solid')
    await page.keyboard.press('Enter')
    const lastName = page.locator('#edit-students-8-lastName')
    await poll(() => lastName.getAttribute('readonly')).toBeNull()
    await page.keyboard.press('Tab') // from First name to Last name
    await poll(() => focusedId(page)).toBe('edit-students-8-lastName')
    await page.keyboard.press('Control+A')
    await page.keyboard.type('Berners Lee')
    await page.keyboard.press('Enter')
    await poll(() => page.getByRole('status').first().innerText()).toBe('Tim Berners Lee was saved.')
    await poll(() => focusedId(page)).toBe('edit-students-8')
    expectClean(session)
  })
})
