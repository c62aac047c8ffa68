import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_APP_DIR } from '../../../src/services/app/index.js'
import { builtScript } from '../../../src/services/app/page.js'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { FAST } from '../webhooks/delivery.suite.js'

/** The page's configuration, as the script reads it from data-config (the quotes are the only references in it). */
function configOf (html: string): any {
  return JSON.parse((/data-config="([^"]*)"/.exec(html)?.[1] ?? '{}').replace(/&quot;/g, '"').replace(/&amp;/g, '&'))
}

const script = builtScript(DEFAULT_APP_DIR)

/**
 * The app's own addresses beyond the views: a record's page
 * (`/app/{collection}/{id}`, issue 37) and, where the server has webhooks,
 * the webhooks page (`/app/webhooks`, issue 34), each the one app page.
 */
describe('the web application\'s record and webhooks pages', () => {
  let plain: RunningServer
  let hooked: RunningServer
  beforeAll(async () => {
    plain = await startServer()
    hooked = await startServer({ webhooks: FAST })
  })
  afterAll(async () => {
    await plain?.close()
    await hooked?.close()
  })

  it('serves the app page at a record\'s own address, for every view', async () => {
    for (const path of ['/app/students/0', '/app/addresses/18446744073709551615', '/app/students/7?x=1', '/app/students/7/']) {
      const res = await request(`${plain.origin}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.text).toContain(`<script type="module" src="/app/${script as string}"></script>`)
    }
    // A record of no view, and deeper paths, are nothing.
    expect((await request(`${plain.origin}/app/teachers/1`)).status).toBe(404)
    expect((await request(`${plain.origin}/app/students/1/2`)).status).toBe(404)
  })

  it('has a webhooks page, named in the page\'s configuration, only where the server has webhooks', async () => {
    expect((await request(`${plain.origin}/app/webhooks`)).status).toBe(404)
    expect(configOf((await request(`${plain.origin}/app/`)).text).webhooks).toBeUndefined()
    const page = await request(`${hooked.origin}/app/webhooks`)
    expect(page.status).toBe(200)
    expect(configOf(page.text).webhooks).toBe('/webhooks')
  })
})
