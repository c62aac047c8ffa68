import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { bearer, security, writeTokensFile } from '../../http/security/helpers.js'
import { FAST } from '../webhooks/delivery.suite.js'
import { Receiver } from '../webhooks/receiver.js'
import { CHROMIUM, expectClean, hasChromium, launch, openSession, poll, seriousViolations } from './browser.js'

/**
 * Issue 34, item 5: the app's webhooks page, for tokens the webhooks API
 * lets in (without auth: this machine): list, create (the secret shown
 * once), ping, rotate the secret, disable and enable, delete, and each
 * webhook's deliveries with their status and a retry.
 */
const title = hasChromium ? 'the app\'s webhooks page' : `the app's webhooks page: SKIPPED because ${CHROMIUM} is missing`
const student = { firstName: 'Ada', lastName: 'Lovelace', age: 36 }

/** The state cell of the deliveries row of an event, read after pressing Refresh until it says `state`. */
async function deliveryState (page: Page, event: string): Promise<string> {
  await page.getByRole('button', { name: 'Refresh' }).click()
  const row = page.locator('table.deliveries-table tbody tr').filter({ hasText: event }).first()
  return await row.count() === 0 ? '' : await row.innerText()
}

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  let receiver: Receiver
  beforeAll(async () => {
    browser = await launch()
    receiver = await new Receiver().listen()
    server = await startServer({ webhooks: FAST })
  })
  afterAll(async () => {
    await server?.close()
    await receiver?.close()
    await browser?.close()
  })

  it('creates a webhook (its secret shown once), shows its deliveries, retries one, pings, rotates, disables and deletes', async () => {
    const session = await openSession(browser)
    const { page } = session
    await page.goto(`${server.origin}/app/students`)
    // The tab shows once the API has let this page in.
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Webhooks' }).click()
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/app/webhooks')
    await page.getByText('No webhooks yet.').waitFor()

    // A refused URL: the server's words, nothing created.
    await page.getByLabel('URL').fill('ftp://example.com/hook')
    await page.getByLabel('Events').fill('students.*')
    await page.getByRole('button', { name: 'Create webhook' }).click()
    await page.locator('form .field-error').waitFor()
    expect((await request(`${server.origin}/webhooks`)).body.webhooks).toEqual([])

    await page.getByLabel('URL').fill(receiver.url)
    await page.getByLabel('Description').fill('search index')
    await page.getByRole('button', { name: 'Create webhook' }).click()
    const secret = page.locator('#webhook-secret code')
    await secret.waitFor()
    const first = /whsec_\S+/.exec(await secret.innerText())?.[0]
    expect(first).toBeDefined()
    const [hook] = (await request(`${server.origin}/webhooks`)).body.webhooks as Array<{ id: string, url: string, events: string[], description: string }>
    expect(hook).toMatchObject({ url: receiver.url, events: ['students.*'], description: 'search index' })
    const item = page.locator(`li.webhook[data-id="${hook?.id ?? ''}"]`)
    await item.waitFor()
    expect(await item.innerText()).toContain('active')

    // A change the receiver refuses stays pending with its status; it is retried on request, and delivered once the receiver recovers.
    receiver.answer(...Array<number>(200).fill(500))
    expect((await request(`${server.origin}/v2/students`, { method: 'POST', json: student })).status).toBe(201)
    await item.getByRole('button', { name: 'Deliveries' }).click()
    await page.getByRole('heading', { name: `Deliveries of ${receiver.url}` }).waitFor()
    await poll(async () => await deliveryState(page, 'students.created')).toMatch(/pending[\s\S]*500/)
    await page.locator('table.deliveries-table tbody tr').filter({ hasText: 'students.created' }).getByRole('button', { name: 'Retry' }).click()
    await page.locator('.banner-slot [role=status]').filter({ hasText: 'is attempted again now' }).waitFor()
    receiver.answerNormally()
    await poll(async () => await deliveryState(page, 'students.created')).toMatch(/delivered[\s\S]*200/)
    expect(await seriousViolations(page), 'axe-core on the webhooks page').toEqual([])

    // A ping: what the receiver answered.
    await item.getByRole('button', { name: 'Ping' }).click()
    await page.locator('.banner-slot [role=status]').filter({ hasText: 'the receiver answered 200' }).waitFor()

    // A new secret, shown once, different from the first.
    await item.getByRole('button', { name: 'Rotate secret' }).click()
    await poll(async () => /whsec_[^\s.]+/.exec(await secret.innerText())?.[0]).not.toBe(first)
    expect(await secret.innerText()).toContain('The old one keeps signing until')

    await item.getByRole('button', { name: 'Disable' }).click()
    await poll(async () => await item.innerText()).toContain('disabled')
    expect((await request(`${server.origin}/webhooks/${hook?.id ?? ''}`)).body.enabled).toBe(false)
    await item.getByRole('button', { name: 'Enable' }).click()
    await poll(async () => await item.innerText()).toContain('active')

    await item.getByRole('button', { name: 'Delete' }).click()
    await page.getByRole('dialog', { name: `Delete the webhook ${receiver.url} and its deliveries?` }).getByRole('button', { name: 'Delete' }).click()
    await page.getByText('No webhooks yet.').waitFor()
    expect((await request(`${server.origin}/webhooks`)).body.webhooks).toEqual([])
    expectClean(session, [400])
    await session.context.close()
  })

  it('offers no webhooks tab to a token the webhooks API refuses, and one to an admin token', async () => {
    const tokens = await writeTokensFile({ reader: ['read'], ops: ['read', 'admin'] })
    const secured = await startServer({ webhooks: FAST, security: security({ authTokensFile: tokens.path, authFailureLimit: { max: 1000, windowMs: 60_000 } }) })
    try {
      expect((await request(`${secured.origin}/webhooks`, { headers: bearer(tokens.tokens.reader) })).status).toBe(403)
      const session = await openSession(browser)
      const { page } = session
      await page.goto(`${secured.origin}/app/students`)
      await page.evaluate(`sessionStorage.setItem('rqs.token', ${JSON.stringify(tokens.tokens.reader)})`)
      const probed = page.waitForResponse((res) => new URL(res.url()).pathname === '/webhooks')
      await page.reload()
      await probed
      await page.locator('h1').filter({ hasText: 'Students' }).waitFor()
      expect(await page.getByRole('link', { name: 'Webhooks' }).count()).toBe(0)

      await page.evaluate(`sessionStorage.setItem('rqs.token', ${JSON.stringify(tokens.tokens.ops)})`)
      await page.reload()
      await page.getByRole('link', { name: 'Webhooks' }).click()
      await page.getByText('No webhooks yet.').waitFor()
      expectClean(session, [401, 403])
      await session.context.close()
    } finally {
      await secured.close()
    }
  })
})
