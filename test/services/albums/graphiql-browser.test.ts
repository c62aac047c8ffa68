import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromium, type Browser } from 'playwright-core'
import { startServer, type RunningServer } from '../../helpers/server.js'

/** Debian's `chromium` package; CI (.ci/run) installs it. Never a downloaded browser build. */
const CHROMIUM = '/usr/bin/chromium'
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'
]
/** Set RQS_GRAPHIQL_SCREENSHOT=docs/graphiql.png to refresh the README's screenshot. */
const screenshotPath = process.env.RQS_GRAPHIQL_SCREENSHOT

function isLoopback (url: string): boolean {
  const { protocol, hostname } = new URL(url)
  if (protocol === 'data:' || protocol === 'blob:') return true
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]'
}

/** Monaco renders spaces as no-break spaces. */
function text (shown: string): string {
  return shown.replace(/\u00a0/g, ' ')
}

const hasChromium = existsSync(CHROMIUM)
const title = hasChromium ? 'GraphiQL in a real browser' : `GraphiQL in a real browser: SKIPPED because ${CHROMIUM} is missing (apt-get install chromium)`

describe.skipIf(!hasChromium)(title, () => {
  let server: RunningServer
  let browser: Browser

  beforeAll(async () => {
    server = await startServer()
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('on a phone (390 × 844) shows the result below the query, the full width (issue 22)', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: 'block' })
    try {
      const page = await context.newPage()
      await page.goto(`${server.origin}/graphiql`)
      const queryEditor = page.locator('.graphiql-query-editor')
      await expect.poll(async () => text(await queryEditor.innerText()), { timeout: 30_000 }).toContain('albums(titleFilter: $titleFilter)')
      await page.locator('.graphiql-execute-button').click()
      const result = page.locator('.graphiql-response')
      await expect.poll(async () => text(await result.innerText()), { timeout: 30_000 }).toContain('Fleetwood Mac')
      const pane = await result.boundingBox()
      const editor = await page.locator('.graphiql-editors').boundingBox()
      expect(pane?.width).toBeGreaterThan(250) // side by side it was 52 px
      expect((pane?.y ?? 0)).toBeGreaterThanOrEqual((editor?.y ?? 0) + (editor?.height ?? 0) - 1)
    } finally {
      await context.close()
    }
  })

  it('loads with no outside request, starts the Monaco workers from this server and runs the sample albums query', async () => {
    // The page's Content-Security-Policy (on by default) would stop an outside request before the guard below could see it:
    // this test is about what GraphiQL asks for; csp-browser.test.ts is about the policy.
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, serviceWorkers: 'block', bypassCSP: true })
    const outside: string[] = []
    await context.route('**/*', async (route) => {
      const url = route.request().url()
      if (isLoopback(url)) return await route.continue()
      outside.push(url)
      return await route.abort('blockedbyclient')
    })
    const page = await context.newPage()
    const pageErrors: string[] = []
    page.on('pageerror', (error) => pageErrors.push(error.message))
    const workers: string[] = []
    page.on('worker', (worker) => workers.push(worker.url()))
    // GraphiQL's own requests: its introspection query (docs, completion) and the query run.
    const graphqlAnswers: Array<Promise<{ status: number, body: any }>> = []
    page.on('response', (res) => {
      if (new URL(res.url()).pathname === '/graphql') graphqlAnswers.push(res.json().then((body) => ({ status: res.status(), body })))
    })

    const response = await page.goto(`${server.origin}/graphiql`)
    expect(response?.status()).toBe(200)

    // The sample query is in the editor once Monaco has loaded.
    const queryEditor = page.locator('.graphiql-query-editor')
    await expect.poll(async () => text(await queryEditor.innerText()), { timeout: 30_000 }).toContain('albums(titleFilter: $titleFilter)')

    await page.locator('.graphiql-execute-button').click()
    const result = page.locator('.graphiql-response')
    await expect.poll(async () => text(await result.innerText()), { timeout: 30_000 }).toContain('Fleetwood Mac')
    const shown = text(await result.innerText())
    expect(shown).toContain('"title": "Pet Sounds"')
    expect(shown).toContain('"recordNo": 10')

    // The editor, JSON and GraphQL language workers run, all loaded from this server.
    await expect.poll(() => workers.map((url) => new URL(url).pathname).sort(), { timeout: 30_000 })
      .toEqual(expect.arrayContaining(['/graphiql/editor.worker.js', '/graphiql/graphql.worker.js', '/graphiql/json.worker.js']))
    for (const url of workers) expect(new URL(url).origin).toBe(server.origin)

    const answers = await Promise.all(graphqlAnswers)
    expect(answers.some((a) => a.body.data?.__schema !== undefined)).toBe(true) // introspection passed the default limits
    expect(answers.some((a) => Array.isArray(a.body.data?.albums))).toBe(true)
    for (const answer of answers) {
      expect(answer.status).toBe(200)
      expect(answer.body.errors).toBeUndefined()
    }

    if (screenshotPath !== undefined) {
      await mkdir(dirname(screenshotPath), { recursive: true })
      await page.screenshot({ path: screenshotPath })
    }
    expect(outside).toEqual([])
    expect(pageErrors).toEqual([])

    // The guard itself works: a request to elsewhere is seen and stopped before it leaves.
    const reached = await page.evaluate(async () => await fetch('https://cdn.example.invalid/graphiql.js').then(() => true, () => false))
    expect(reached).toBe(false)
    expect(outside).toEqual(['https://cdn.example.invalid/graphiql.js'])
    await context.close()
  }, 120_000)
})
