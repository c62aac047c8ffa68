import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import type { FastifyInstance } from 'fastify'
import { makeConfig } from '../../../src/options.js'
import { buildServer } from '../../../src/server.js'
import { CHROMIUM, hasChromium, launch, openSession, poll } from './browser.js'

/**
 * Issue 37, item 6: banners that follow the connection. "The server could
 * not be reached" goes once the page reaches the server again (the change
 * feed reconnects after a restart); a success message fades.
 */
const title = hasChromium ? 'the app\'s banners follow the connection' : `the app's banners follow the connection: SKIPPED because ${CHROMIUM} is missing`

async function listen (port: number): Promise<FastifyInstance> {
  const app = await buildServer(makeConfig({ logLevel: 'silent', port }))
  await app.listen({ port, host: '127.0.0.1' })
  return app
}

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  const servers: FastifyInstance[] = []
  beforeAll(async () => { browser = await launch() })
  afterAll(async () => {
    for (const app of servers) await app.close()
    await browser?.close()
  })

  it('clears "could not be reached" when the server is back, and lets "was added" fade', async () => {
    const first = await listen(0)
    const address = first.server.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    const origin = `http://127.0.0.1:${address.port}`
    const { page, context } = await openSession(browser)
    await page.goto(`${origin}/app/students`)
    await page.locator('.live.on').waitFor()

    await first.close()
    await page.getByRole('button', { name: 'Reload' }).click()
    const unreachable = page.getByRole('alert').filter({ hasText: 'The server could not be reached' })
    await poll(async () => await unreachable.count()).toBe(1)

    // The same address again: the feed reconnects, and the banner goes without a click.
    servers.push(await listen(address.port))
    await expect.poll(async () => await unreachable.count(), { timeout: 40_000, interval: 100 }).toBe(0)
    expect(await page.locator('.live.on').count()).toBe(1)

    const form = page.locator('form').filter({ has: page.getByRole('button', { name: 'Add student' }) })
    await form.getByLabel('First name').fill('Ada')
    await form.getByLabel('Last name').fill('Lovelace')
    await form.getByLabel('Age').fill('36')
    await form.getByRole('button', { name: 'Add student' }).click()
    const added = page.locator('.banner-slot [role=status]')
    await poll(async () => await added.textContent()).toBe('Ada Lovelace was added.')
    await expect.poll(async () => await added.textContent(), { timeout: 20_000, interval: 200 }).toBe('')
    await context.close()
  }, 90_000)
})
