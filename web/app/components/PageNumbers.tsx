import { formatNumber, type Translate } from '../i18n.js'
import { pageButtons } from '../page-numbers.js'
import { wordsOf } from '../words.js'

const words = wordsOf({
  en: { pages: 'Pages', page: 'Page {n}', pageOf: 'Page {n} of {count}' },
  de: { pages: 'Seiten', page: 'Seite {n}', pageOf: 'Seite {n} von {count}' }
})

interface Props {
  idPrefix: string
  t: Translate
  numbers: { current: number, count?: number, reachable: number[] }
  onJump: (index: number) => void
}

/** "Page 3 of 12" and a button per nearby page (the page shown marked as current). */
export function PageNumbers ({ idPrefix, t, numbers, onJump }: Props) {
  const w = words(t.lang)
  const n = (index: number): string => formatNumber(t.lang, index + 1)
  const { current, count, reachable } = numbers
  if (count !== undefined && count <= 1 && reachable.length <= 1) return null
  return (
    <nav class="page-numbers" aria-label={w('pages')}>
      <span class="page-of" id={`page-of-${idPrefix}`}>{count === undefined ? w('page', { n: n(current) }) : w('pageOf', { n: n(current), count: formatNumber(t.lang, count) })}</span>
      {pageButtons(current, reachable).map((index, at) => index === 'gap'
        ? <span key={`gap${at}`} aria-hidden="true">…</span>
        : (
          <button key={index} type="button" id={`page-${idPrefix}-${index + 1}`} aria-label={w('page', { n: n(index) })} aria-current={index === current ? 'page' : undefined}
            disabled={index === current} onClick={() => { onJump(index) }}>{n(index)}</button>
          ))}
    </nav>
  )
}
