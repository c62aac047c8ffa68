import { afterEach, describe, expect, it, vi } from 'vitest'
import { DEFAULT_LIMIT, filterParams, queryFromSearch, searchOf, viewFromLocation } from '../../../web/app/view-state.js'
import { ADDRESSES, STUDENTS } from '../../../web/app/resources.js'

/** The web app's view state in the URL (web/app/view-state.ts): a reload, Back and a shared link show the same view. */
describe('the web app\'s view state', () => {
  afterEach(() => { vi.unstubAllGlobals() })

  it('offers the API\'s filter parameters by kind', () => {
    expect(STUDENTS.fields.map(filterParams)).toEqual([['firstName[contains]'], ['lastName[contains]'], ['age[gte]', 'age[lte]']])
    expect(filterParams({ key: 'inPrint', label: { literal: 'In print' }, kind: 'boolean', searchable: false, editable: true })).toEqual(['inPrint'])
  })

  it('reads a view from its query string, ignoring what the view does not have', () => {
    expect(queryFromSearch('?sort=-age&q=ada&age[gte]=18&firstName[contains]=&limit=50&cursor=abc&page=2&city[contains]=x', STUDENTS)).toEqual({
      q: 'ada', sort: { field: 'age', desc: true }, limit: 50, filters: { 'age[gte]': '18' }, cursor: 'abc', page: 2
    })
    expect(queryFromSearch('', ADDRESSES)).toEqual({ q: '', sort: undefined, limit: DEFAULT_LIMIT, filters: {}, cursor: undefined, page: 0 })
    // A sort on an unknown field, a page size not offered, a page without its cursor: the defaults.
    expect(queryFromSearch('?sort=secret&limit=7&page=3', STUDENTS)).toEqual({ q: '', sort: undefined, limit: DEFAULT_LIMIT, filters: {}, cursor: undefined, page: 0 })
    expect(queryFromSearch('?sort=id', STUDENTS).sort).toEqual({ field: 'id', desc: false })
  })

  it('writes a view back as the same query string, brackets readable and defaults left out', () => {
    const query = { q: ' ada ', sort: { field: 'age', desc: true }, limit: 50, filters: { 'age[gte]': '18', 'lastName[contains]': '' }, cursor: 'a b', page: 2 }
    const search = searchOf(query)
    expect(search).toBe('?sort=-age&q=ada&age[gte]=18&limit=50&cursor=a%20b&page=2')
    expect(queryFromSearch(search, STUDENTS)).toEqual({ ...query, q: 'ada', filters: { 'age[gte]': '18' }, cursor: 'a b' })
    expect(searchOf({ q: '', limit: DEFAULT_LIMIT, filters: {}, page: 0 })).toBe('')
    // A cursor on the first page says nothing.
    expect(searchOf({ q: '', limit: DEFAULT_LIMIT, filters: {}, cursor: 'c', page: 0 })).toBe('')
  })

  it('finds the view a path or an old hash names, else the first', () => {
    const at = (pathname: string, hash = ''): void => { vi.stubGlobal('location', { pathname, hash }) }
    const views = ['students', 'addresses', 'my books']
    at('/app/addresses')
    expect(viewFromLocation(views)).toBe('addresses')
    at('/app/my%20books/')
    expect(viewFromLocation(views)).toBe('my books')
    at('/app/', '#/addresses')
    expect(viewFromLocation(views)).toBe('addresses')
    at('/app/nothing')
    expect(viewFromLocation(views)).toBe('students')
    expect(viewFromLocation([])).toBeUndefined()
  })
})
