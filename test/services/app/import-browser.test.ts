import { readFile } from 'node:fs/promises'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { request, startServer, type RunningServer } from '../../helpers/server.js'
import { fromFile } from '../../../src/services/collections/config.js'
import { declarationFiles } from '../collections/fixture.js'
import { CHROMIUM, hasChromium, launch, openSession, poll, type Session } from './browser.js'

/**
 * Issue 37, items 1 and 2: the app's CSV import shows a preview before it
 * writes anything (the column mapping, the first rows typed as `rqs import`
 * types them, the lines it cannot read, with a report to download), never
 * loses students to the count rule without the add form's warning, and says
 * what it added, replaced and refused.
 */
const V2 = { accept: 'application/vnd.rqs.v2+json' }
const files = declarationFiles()
const SHELF = {
  collections: {
    books: {
      schema: {
        type: 'object',
        properties: { title: { type: 'string', minLength: 1, maxLength: 200 }, year: { type: 'integer', minimum: 0, maximum: 3000 }, available: { type: 'boolean' } },
        required: ['title']
      },
      ids: 'sequence'
    }
  }
}
const title = hasChromium ? 'the app\'s CSV import preview' : `the app's CSV import preview: SKIPPED because ${CHROMIUM} is missing`

async function pickFile (page: Page, name: string, csv: string): Promise<void> {
  await page.locator('.transfer input[type=file]').setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(csv) })
}

describe.skipIf(!hasChromium)(title, () => {
  let browser: Browser
  let server: RunningServer
  const sessions: Session[] = []
  beforeAll(async () => {
    browser = await launch()
    server = await startServer({ collections: fromFile(files.write('shelf.json', SHELF), '--collections') })
    // Students 0, 2, 3, 4, 5: five held, so the count rule's next id, 5, is taken.
    for (const firstName of ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald']) {
      await request(`${server.origin}/students`, { method: 'POST', headers: V2, json: { firstName, lastName: 'Held', age: 40 } })
    }
    expect((await request(`${server.origin}/students/1`, { method: 'DELETE', headers: V2 })).status).toBe(204)
  })
  afterAll(async () => {
    await server?.close()
    await browser?.close()
  })
  afterEach(async () => { for (const s of sessions.splice(0)) await s.context.close() })

  const open = async (path: string, options = {}): Promise<Page> => {
    const session = await openSession(browser, options)
    sessions.push(session)
    await session.page.goto(`${server.origin}${path}`)
    return session.page
  }
  const students = async (): Promise<Array<{ id: number, firstName: string }>> => (await request(`${server.origin}/students`, { headers: V2 })).body

  it('refuses a students file with ids (the server gives them) and warns of the count rule\'s replacements before writing', async () => {
    const before = await students()
    const page = await open('/app/students')
    await page.locator('tbody tr[data-id="5"]').waitFor()

    // The file: ids 100 and 101 the server would not keep.
    await pickFile(page, 'ids.csv', 'id,firstName,lastName,age\r\n100,Kath,Johnson,101\r\n101,Mary,Jackson,83\r\n')
    await poll(async () => await page.locator('.transfer-summary').textContent()).toMatch(/^ids\.csv: The file has an id column, but this collection gives ids itself/)
    expect(await page.locator('.import-preview').count()).toBe(0)

    // Without ids: the preview names the replacements (student 5, then the import's own) and waits.
    await pickFile(page, 'new.csv', 'firstName,lastName,age\r\nKath,Johnson,101\r\nMary,Jackson,83\r\n')
    const warning = page.locator('.import-preview .replace-warning')
    await poll(async () => await warning.textContent()).toMatch(/^2 of these 2 records would replace a record instead of being added: .* id 5 is held by Donald Held/)
    expect(await page.locator('.import-rows tbody tr').allInnerTexts()).toEqual(['2\tKath\tJohnson\t101', '3\tMary\tJackson\t83'])
    expect(await page.locator('.import-mapping').textContent()).toBe('Columns: firstName → First name, lastName → Last name, age → Age')
    await page.locator('.import-preview').getByRole('button', { name: 'Cancel' }).click()
    expect(await page.locator('.import-preview').count()).toBe(0)
    expect(await students()).toEqual(before)

    // Confirmed: the result says what was replaced, never "added".
    await pickFile(page, 'new.csv', 'firstName,lastName,age\r\nKath,Johnson,101\r\nMary,Jackson,83\r\n')
    await page.getByRole('button', { name: 'Import and replace' }).click()
    await poll(async () => await page.locator('.transfer-summary').textContent()).toMatch(/^0 records added, 2 replaced; 0 refused\./)
    expect((await students()).map((s) => s.id)).toEqual([0, 2, 3, 4, 5])
  })

  it('types booleans as rqs import does, and a bad line keeps the whole file out and is in the report', async () => {
    const page = await open('/app/books', { acceptDownloads: true })
    await page.getByRole('heading', { level: 1, name: 'Books' }).waitFor()
    const good = 'title,year,available\r\nA,2001,TRUE\r\nB,2002,True\r\nC,2003,1\r\nD,2004,false\r\nE,2005,0\r\n'
    await pickFile(page, 'books.csv', `${good}F,2006,yes\r\nG,20.5,ja\r\n`)
    await poll(async () => await page.locator('.import-errors').textContent()).toMatch(/^2 lines cannot be imported; nothing is written until the file is fixed\. Line 7: available must be true or false \(in any case\), 1 or 0, not "yes" · Line 8: year must be an integer, not "20\.5"/)
    expect(await page.getByRole('button', { name: /^Import \d+ records$/ }).count()).toBe(0)
    const download = page.waitForEvent('download')
    await page.getByRole('button', { name: 'Download the error report' }).click()
    const report = await download
    expect(report.suggestedFilename()).toBe('books-import-errors.csv')
    expect(await readFile(await report.path(), 'utf8')).toBe('line,reason\r\n7,"available must be true or false (in any case), 1 or 0, not ""yes"""\r\n8,"year must be an integer, not ""20.5"""\r\n')
    expect((await request(`${server.origin}/books`)).body.items).toEqual([])

    // The same file without its bad lines: typed as the preview shows, then written.
    await pickFile(page, 'books.csv', good)
    expect(await page.locator('.import-rows tbody tr').allInnerTexts()).toEqual(['2\tA\t2001\ttrue', '3\tB\t2002\ttrue', '4\tC\t2003\ttrue', '5\tD\t2004\tfalse', '6\tE\t2005\tfalse'])
    await page.getByRole('button', { name: 'Import 5 records' }).click()
    await poll(async () => await page.locator('.transfer-summary').textContent()).toMatch(/^5 records added; 0 refused\./)
    const books = (await request(`${server.origin}/books?sort=title`)).body.items as Array<{ title: string, available: boolean }>
    expect(books.map((b) => [b.title, b.available])).toEqual([['A', true], ['B', true], ['C', true], ['D', false], ['E', false]])
  })

  it('keeps the ids of an address file (PUT creates at an id) and counts what it replaced', async () => {
    const held = await request(`${server.origin}/addresses`, { method: 'POST', json: { name: 'Ada', city: 'Berlin', postalCode: '10115' } })
    expect(held.status).toBe(201)
    const page = await open('/app/addresses')
    await page.getByRole('button', { name: 'Import CSV' }).waitFor()
    await pickFile(page, 'addresses.csv', `id,name,city,postalCode\r\n${String(held.body.id)},Ada,Kiel,24103\r\n9223372036854775807,Max,Bonn,53111\r\n,Grace,Ulm,89073\r\n`)
    await page.getByRole('button', { name: 'Import 3 records' }).click()
    await poll(async () => await page.locator('.transfer-summary').textContent()).toMatch(/^2 records added, 1 replaced; 0 refused\./)
    const text = (await request(`${server.origin}/addresses?limit=10`)).text
    expect(text).toContain('"id":9223372036854775807,"name":"Max","city":"Bonn"')
    expect(text).toContain(`"id":${String(held.body.id)},"name":"Ada","city":"Kiel"`)
    expect(text).toContain('"name":"Grace","city":"Ulm"')
  })

  it('names the separator of a semicolon-separated file', async () => {
    const page = await open('/app/books')
    await page.getByRole('heading', { level: 1, name: 'Books' }).waitFor()
    await pickFile(page, 'excel.csv', 'title;year;available\r\nA;2001;TRUE\r\n')
    await poll(async () => await page.locator('.transfer-summary').textContent()).toMatch(/The header looks separated by ";": save the file with commas between the columns\.$/)
  })
})
