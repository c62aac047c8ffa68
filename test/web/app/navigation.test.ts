import { afterEach, describe, expect, it, vi } from 'vitest'
import { placeFromLocation, recordPath } from '../../../web/app/navigation.js'
import { pageButtons } from '../../../web/app/page-numbers.js'
import { eventList } from '../../../web/app/webhooks.js'

/** The app's places (web/app/navigation.ts), its page numbers and the webhooks form's events. */
describe('the web app\'s places and page numbers', () => {
  afterEach(() => { vi.unstubAllGlobals() })

  it('finds a record\'s page in the path, the view alone otherwise', () => {
    const at = (pathname: string, hash = ''): void => { vi.stubGlobal('location', { pathname, hash }) }
    const views = ['students', 'my books', 'webhooks']
    at('/app/students/7')
    expect(placeFromLocation(views)).toEqual({ view: 'students', record: '7' })
    at('/app/my%20books/12/')
    expect(placeFromLocation(views)).toEqual({ view: 'my books', record: '12' })
    at('/app/students')
    expect(placeFromLocation(views)).toEqual({ view: 'students' })
    // A record of an unknown view, or a deeper path: the first view, as any unknown address.
    at('/app/teachers/1')
    expect(placeFromLocation(views)).toEqual({ view: 'students' })
    at('/app/students/1/2')
    expect(placeFromLocation(views)).toEqual({ view: 'students' })
    expect(recordPath('my books', 'a/b')).toBe('/app/my%20books/a%2Fb')
  })

  it('offers the first page, the reachable last one and those around the page shown, eliding the rest', () => {
    expect(pageButtons(0, [0, 1])).toEqual([0, 1])
    expect(pageButtons(4, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])).toEqual([0, 'gap', 2, 3, 4, 5, 6, 'gap', 9])
    expect(pageButtons(0, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])).toEqual([0, 1, 2, 'gap', 9])
    // Server paging by cursor: the pages walked and the next one.
    expect(pageButtons(5, [0, 1, 2, 3, 4, 5, 6])).toEqual([0, 'gap', 3, 4, 5, 6])
  })

  it('reads the webhooks form\'s events separated by commas or lines', () => {
    expect(eventList(' books.*, authors.created\n,students.deleted ')).toEqual(['books.*', 'authors.created', 'students.deleted'])
    expect(eventList(' , ')).toEqual([])
  })
})
