import { describe, expect, it } from 'vitest'
import { checkFilter, FilterError, MAX_FILTER_COMPARISONS, MAX_FILTER_DEPTH, MAX_FILTER_LENGTH, parseFilter, type FilterFields } from '../../src/domain/index.js'

/** The filter language's parser and checker (issue 31, item 4): the tree it builds, and the position of each mistake. */
const FIELDS: FilterFields = {
  id: { kind: 'integer', min: 1 },
  title: { kind: 'string', maxLength: 20 },
  year: { kind: 'integer', min: 0, max: 3000 },
  price: { kind: 'number' },
  available: { kind: 'boolean' },
  published: { kind: 'date-time' },
  big: { kind: 'int64' }
}

const check = (text: string): unknown => checkFilter(parseFilter(text), FIELDS)

function mistake (text: string): string {
  try {
    check(text)
  } catch (err) {
    expect(err).toBeInstanceOf(FilterError)
    return (err as Error).message
  }
  throw new Error(`no mistake in ${text}`)
}

describe('filter parser', () => {
  it('binds && tighter than ||, reads ! and parentheses', () => {
    expect(check('year = 1 || year = 2 && title = \'a\'')).toEqual({
      op: 'or',
      items: [{ op: 'eq', field: 'year', value: 1 }, { op: 'and', items: [{ op: 'eq', field: 'year', value: 2 }, { op: 'eq', field: 'title', value: 'a' }] }]
    })
    expect(check('!(year = 1 || year = 2) && !available = true')).toEqual({
      op: 'and',
      items: [
        { op: 'not', item: { op: 'or', items: [{ op: 'eq', field: 'year', value: 1 }, { op: 'eq', field: 'year', value: 2 }] } },
        { op: 'not', item: { op: 'eq', field: 'available', value: true } }
      ]
    })
  })

  it('reads every operator and literal as the field\'s kind reads it', () => {
    expect(check('year<1&&year<=2&&year>3&&year>=4&&year!=5')).toEqual({
      op: 'and',
      items: [['lt', 1], ['lte', 2], ['gt', 3], ['gte', 4], ['ne', 5]].map(([op, value]) => ({ op, field: 'year', value }))
    })
    expect(check('price > -1.5e2')).toEqual({ op: 'gt', field: 'price', value: -150 })
    expect(check('big = 9223372036854775807')).toEqual({ op: 'eq', field: 'big', value: 9223372036854775807n })
    expect(check('published >= "2024-05-01T09:00:00+02:00"')).toEqual({ op: 'gte', field: 'published', value: '2024-05-01T07:00:00.000Z' })
    expect(check('title = "a\\"b\\\\c\\n\\u00e4\'"')).toEqual({ op: 'eq', field: 'title', value: 'a"b\\c\nä\'' })
    expect(check("title ~ 'DÜ'")).toEqual({ op: 'contains', field: 'title', value: 'DÜ' })
    expect(check("title !~ 'x'")).toEqual({
      op: 'and', items: [{ op: 'not', item: { op: 'unset', field: 'title' } }, { op: 'not', item: { op: 'contains', field: 'title', value: 'x' } }]
    })
    expect(check('title = null')).toEqual({ op: 'unset', field: 'title' })
    expect(check('title != null')).toEqual({ op: 'not', item: { op: 'unset', field: 'title' } })
  })

  it.each([
    ['year >= ', "expected a value after '>=' at 9"],
    ['(year < 1900 || year >= ) && available = true', "expected a value after '>=' at 25"],
    ['year >= title', "expected a value after '>=' (text is quoted: 'title') at 9"],
    ['year', "expected an operator (=, !=, <, <=, >, >=, ~, !~, ?=) after 'year', not the end at 5"],
    ['year == 1', "expected a value after '=' at 7"],
    ['&& year = 1', "expected a field name, not '&&' at 1"],
    ['year = 1 )', "expected && or || before ')' at 10"],
    ['((year = 1)', "expected ')' or an operator such as && before the end at 12"],
    ["title = 'a", 'unclosed string: no \' after it at 9'],
    ["title = 'a\\q'", 'unknown escape "\\q" in a string (write \\\\ for a backslash) at 11'],
    ['year = 1 # 2', 'unexpected character "#" at 10'],
    ['year = 12abc', 'malformed number "12a" at 8'],
    ['year = 01', 'malformed number "01" at 8'],
    ['nope = 1', 'unknown field "nope" (fields: id, title, year, price, available, published, big) at 1'],
    ['toString = 1', 'unknown field "toString"'],
    ['a.b = 1', '"a.b" is no field of this collection'],
    ['year ?= 1', "'?=' tests a list field, and year holds one value: write '=' at 6"],
    ['year > null', "null compares with = and != only, not '>' at 8"],
    ['year ~ 1', "'~' applies to text fields only, and year is integer at 6"],
    ['available < true', "'<' does not apply to available: it is boolean, compared with = and != only at 11"],
    ['year = 3001', 'year must be <= 3000, not 3001 at 8'],
    ['year = 1.5', 'year must be integer, not 1.5 at 8'],
    ['year = "1"', "year must be an integer from 0 to 3000, not '1' at 8"],
    ['title = 1', 'title must be text of at most 20 characters, not 1 at 9'],
    ["title = 'aaaaaaaaaaaaaaaaaaaaa'", 'title must NOT have more than 20 characters'],
    ["title = '\\u0000'", 'title '],
    ['published = "yesterday"', 'published must be a date-time as RFC 3339 has it'],
    ['available = 1', 'available must be true or false, not 1 at 13'],
    ['big = 0', 'big must be >= 1, not 0'],
    ['   ', 'empty expression at 1']
  ])('%j → %s', (text, message) => {
    expect(mistake(text)).toContain(message)
  })

  it('bounds the text, the nesting and the number of comparisons', () => {
    expect(mistake(`title = '${'a'.repeat(MAX_FILTER_LENGTH)}'`)).toBe(`longer than ${MAX_FILTER_LENGTH} characters at ${MAX_FILTER_LENGTH + 1}`)
    expect(() => check(`${'('.repeat(MAX_FILTER_DEPTH)}year = 1${')'.repeat(MAX_FILTER_DEPTH)}`)).not.toThrow()
    expect(mistake(`${'('.repeat(MAX_FILTER_DEPTH + 1)}year = 1${')'.repeat(MAX_FILTER_DEPTH + 1)}`)).toBe(`nested deeper than ${MAX_FILTER_DEPTH} levels at ${MAX_FILTER_DEPTH + 1}`)
    expect(mistake(`${'!'.repeat(MAX_FILTER_DEPTH + 1)}year = 1`)).toContain('nested deeper than')
    const many = (n: number): string => Array.from({ length: n }, (_, i) => `year = ${i}`).join(' || ')
    expect(() => check(many(MAX_FILTER_COMPARISONS))).not.toThrow()
    expect(mistake(many(MAX_FILTER_COMPARISONS + 1))).toContain(`more than ${MAX_FILTER_COMPARISONS} comparisons`)
  })
})
