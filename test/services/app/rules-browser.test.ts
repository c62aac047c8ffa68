import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { request } from '../../helpers/server.js'
import { rulesServer, type RulesServer } from '../../graphql/rules.suite.js'
import { CHROMIUM, expectClean, hasChromium, launch, openSession, poll, type Session } from './browser.js'

/**
 * The web app under record rules (docs/rules.md, examples/notes.json): it
 * shows what its token may see, offers no action the rules never allow its
 * caller, and says the server's words when a rule refuses a write.
 */
const title = hasChromium ? 'the app under record rules' : `the app under record rules: SKIPPED because ${CHROMIUM} is missing`

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let rules: RulesServer
  let base: string
  const sessions: Session[] = []
  const ids: Record<string, string> = {}
  beforeAll(async () => {
    browser = await launch()
    rules = await rulesServer(undefined)
    base = rules.server.origin
    for (const [caller, text, open] of [['alice', 'alice public', true], ['alice', 'alice private', false], ['bob', 'bob private', false]] as const) {
      const created = await request(`${base}/notes`, { method: 'POST', headers: rules.as(caller), json: { title: text, public: open } })
      expect(created.status).toBe(201)
      ids[text] = String(created.body.id)
    }
  })
  afterAll(async () => {
    await rules?.close()
    await browser?.close()
  })
  afterEach(async () => { for (const s of sessions.splice(0)) await s.context.close() })

  async function notesAs (caller: 'anonymous' | 'bob'): Promise<Session> {
    const session = await openSession(browser)
    sessions.push(session)
    const token = rules.as(caller).authorization?.replace('Bearer ', '')
    await session.page.goto(`${base}/app/`)
    if (token !== undefined) await session.page.evaluate(`sessionStorage.setItem('rqs.token', ${JSON.stringify(token)})`)
    await session.page.goto(`${base}/app/notes`)
    await session.page.locator(`tbody tr[data-id="${ids['alice public'] as string}"]`).waitFor()
    return session
  }

  it('an anonymous visitor sees the public note only, and no New, Edit or Delete', async () => {
    const session = await notesAs('anonymous')
    const { page } = session
    // GET /collections answered: the rules' operations are known once the form is gone.
    await poll(async () => await page.locator('form fieldset legend').count()).toBe(0)
    await poll(async () => await page.locator('tbody tr[data-id]').count()).toBe(1)
    expect(await page.getByRole('button', { name: /^Edit / }).count()).toBe(0)
    expect(await page.getByRole('button', { name: /^Delete / }).count()).toBe(0)
    expectClean(session)
  })

  it('bob sees alice\'s public note and his own, never her private one; Edit and Delete only on his own; a change of owner is refused with the server\'s words', async () => {
    const session = await notesAs('bob')
    const { page } = session
    const bobs = ids['bob private'] as string
    const alices = ids['alice public'] as string
    await page.locator(`tbody tr[data-id="${bobs}"]`).waitFor()
    expect(await page.locator(`tbody tr[data-id="${ids['alice private'] as string}"]`).count()).toBe(0)
    // Bob may create notes: the form stays; he may change his own notes only.
    expect(await page.locator('form fieldset legend').count()).toBe(1)
    await page.locator(`#edit-notes-${bobs}`).waitFor()
    await page.locator(`#delete-notes-${bobs}`).waitFor()
    await poll(async () => await page.locator(`#edit-notes-${alices}`).count()).toBe(0)
    expect(await page.locator(`#delete-notes-${alices}`).count()).toBe(0)
    await page.locator(`#edit-notes-${bobs}`).click()
    const owner = page.locator(`#edit-notes-${bobs}-author`)
    await poll(async () => await owner.inputValue()).toBe('bob')
    await owner.fill('alice')
    await page.getByRole('button', { name: 'Save' }).click()
    await poll(async () => await page.getByText('A record belongs to whoever created it; its owner cannot be set or changed.').count()).toBeGreaterThan(0)
    expect((await request(`${base}/notes/${bobs}`, { headers: rules.as('bob') })).body.author).toBe('bob')
    expectClean(session, [403])
  })
})
