import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { FAST } from '../webhooks/delivery.suite.js'
import { CHROMIUM, DESKTOP, expectClean, hasChromium, launch, openSession, PHONE, poll } from './browser.js'

/**
 * Issue 37, item 6: the app's German texts (longer than the English ones)
 * fit at 1 280 and 390 px: nothing scrolls sideways, no button or link is
 * cut off, and a row's buttons stay inside their cell, in every view (the
 * lists, a row being edited, the delete dialog, a record's page, webhooks).
 */
const LIBRARY = fileURLToPath(new URL('../../../examples/library.json', import.meta.url))
const title = hasChromium ? 'the app\'s German layout' : `the app's German layout: SKIPPED because ${CHROMIUM} is missing`

/**
 * What does not fit, as lines naming the element: the page wider than the
 * window; an element that scrolls or clips sideways (scrollWidth beyond its
 * box); a control whose text is cut off or that reaches past the window or
 * past the table cell it sits in. Visually hidden elements (clipped to
 * nothing on purpose) are left out. Run in the page (a string: the
 * project's type check has no DOM library).
 */
const MISFITS = `(() => {
  const out = []
  const root = document.documentElement
  if (root.scrollWidth > root.clientWidth) out.push('the page: ' + root.scrollWidth + ' px wide in ' + root.clientWidth)
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' "' + (el.innerText || el.value || '').trim().slice(0, 40) + '"'
  const shown = (el) => {
    if (el.closest('.visually-hidden')) return false
    // Clipped to nothing on purpose (a phone's table head, read by screen readers only).
    for (let at = el; at !== null && at !== document.body; at = at.parentElement) if (getComputedStyle(at).clip !== 'auto') return false
    const box = el.getBoundingClientRect()
    return box.width > 0 && box.height > 0
  }
  for (const el of document.querySelectorAll('body *')) {
    if (!shown(el)) continue
    const style = getComputedStyle(el)
    if (['auto', 'scroll', 'hidden', 'clip'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1) out.push('scrolls or clips sideways: ' + name(el) + ' (' + el.scrollWidth + ' in ' + el.clientWidth + ')')
  }
  for (const el of document.querySelectorAll('button, a, summary, select, label')) {
    if (!shown(el)) continue
    const box = el.getBoundingClientRect()
    if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== 'inline') out.push('text cut off: ' + name(el) + ' (' + el.scrollWidth + ' in ' + el.clientWidth + ')')
    if (box.right > root.clientWidth + 1 || box.left < -1) out.push('past the window: ' + name(el) + ' (' + Math.round(box.left) + '–' + Math.round(box.right) + ')')
    const cell = el.closest('td, th')
    if (cell !== null) {
      const around = cell.getBoundingClientRect()
      if (box.right > around.right + 1 || box.left < around.left - 1) out.push('past its cell: ' + name(el) + ' (' + Math.round(box.left) + '–' + Math.round(box.right) + ' in ' + Math.round(around.left) + '–' + Math.round(around.right) + ')')
    }
  }
  return out
})()`

async function misfits (page: Page): Promise<string[]> {
  return await page.evaluate<string[]>(MISFITS)
}

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  beforeAll(async () => {
    browser = await launch()
    server = await startServer({ collections: fromFile(LIBRARY, '--collections'), webhooks: FAST })
    const post = async (path: string, json: unknown): Promise<void> => {
      expect((await request(`${server.origin}${path}`, { method: 'POST', json })).status, path).toBe(201)
    }
    await post('/v2/students', { firstName: 'Ada', lastName: 'Lovelace', age: 36 })
    await post('/v2/students', { firstName: 'Grace', lastName: 'Hopper', age: 85 })
    await post('/addresses', { name: 'Ada', city: 'London', postalCode: 'W1' })
    await post('/authors', { name: 'Frank Herbert', born: 1920 })
    await post('/books', { title: 'Dune', year: 1965, author: 1 })
    await post('/reviews', { text: 'Ein Klassiker', book: 1 })
    // Enough tags for page numbers.
    for (let i = 0; i < 45; i++) await post('/tags', { label: `Etikett ${i}` })
    expect((await request(`${server.origin}/webhooks`, { method: 'POST', json: { url: 'http://127.0.0.1:9/rqs-suchindex', events: ['books.*'], description: 'Suchindex' } })).status).toBe(201)
  })
  afterAll(async () => {
    await server?.close()
    await browser?.close()
  })

  for (const [size, viewport] of [['1 280 px', DESKTOP], ['390 px', PHONE]] as const) {
    it(`fits in German at ${size}: the lists, an edited row, the delete dialog, a record's page and the webhooks page`, async () => {
      const session = await openSession(browser, { viewport, locale: 'de-DE' })
      const { page } = session
      const check = async (where: string): Promise<void> => {
        expect(await misfits(page), `${where} at ${size}`).toEqual([])
      }

      await page.goto(`${server.origin}/app/students`)
      await page.locator('tbody tr[data-id="1"]').waitFor()
      expect(await page.evaluate<string>('document.documentElement.lang')).toBe('de')
      await page.locator('details.column-chooser summary').click()
      await page.locator('details.column-chooser fieldset').waitFor()
      await check('students')
      if (viewport === DESKTOP) {
        // Wide enough for the German buttons on one line (they would wrap rather than overflow).
        const tops = await page.locator('tbody tr[data-id="1"] td.actions button').evaluateAll((buttons) => buttons.map((b) => Math.round(b.getBoundingClientRect().top)))
        expect(new Set(tops).size, `the row's buttons on one line (${tops.join(', ')})`).toBe(1)
      }
      await page.locator('#edit-students-1').click()
      // The row's inputs wait, read-only, for the record: then it is as it stays.
      await poll(async () => await page.locator('#edit-students-1-firstName').getAttribute('readonly')).toBeNull()
      await check('students, a row being edited')
      await page.keyboard.press('Escape')
      await page.locator('tr.editing').waitFor({ state: 'detached' })
      await page.locator('#delete-students-1').click()
      await page.getByRole('dialog').waitFor()
      await check('students, the delete dialog')
      await page.getByRole('dialog').getByRole('button', { name: 'Abbrechen' }).click()

      for (const view of ['addresses', 'books', 'tags']) {
        await page.goto(`${server.origin}/app/${view}`)
        await page.locator('tbody tr').first().waitFor()
        await check(view)
      }
      await page.getByRole('navigation', { name: 'Seiten' }).waitFor()

      await page.goto(`${server.origin}/app/books/1`)
      await page.getByRole('heading', { name: 'Verweise auf diesen Eintrag' }).waitFor()
      await check('a record\'s page')
      await page.getByRole('button', { name: 'Bearbeiten' }).click()
      await page.getByRole('button', { name: 'Speichern' }).waitFor()
      await check('a record\'s page, editing')

      await page.goto(`${server.origin}/app/webhooks`)
      await page.locator('li.webhook').waitFor()
      await page.getByRole('button', { name: 'Zustellungen', exact: true }).click()
      await page.getByText('Noch keine Zustellungen.').waitFor()
      await check('webhooks')
      expectClean(session)
      await session.context.close()
    })
  }
})
