import { formatNumber, type Translate } from '../i18n.js'
import type { Page } from '../listing.js'
import { PAGE_SIZES } from '../view-state.js'
import { PageNumbers } from './PageNumbers.js'

interface Props {
  idPrefix: string
  t: Translate
  page: Page | undefined
  limit: number
  /** The list can jump to its last page (client mode). */
  canLast: boolean
  onLimit: (limit: number) => void
  onTurn: (to: 'first' | 'previous' | 'next' | 'last') => void
  /** The page numbers to offer, and a jump to one. */
  numbers?: { current: number, count?: number, reachable: number[] }
  onJump?: (index: number) => void
}

/** "1–20 of 200,000" in the page's language, the page size, first / previous / next / last, and the page numbers. */
export function Pager ({ idPrefix, t, page, limit, canLast, onLimit, onTurn, numbers, onJump }: Props) {
  const rows = page?.rows.length ?? 0
  const n = (value: number): string => formatNumber(t.lang, value)
  const from = page === undefined || rows === 0 ? 0 : page.offset + 1
  const to = page === undefined ? 0 : page.offset + rows
  const range = page?.total !== undefined ? t('range', { from: n(from), to: n(to), total: n(page.total) }) : t('rangeOpen', { from: n(from), to: n(to) })
  return (
    <div class="pager">
      <span class="count" aria-live="polite">{page === undefined || rows === 0 ? '' : range}</span>
      <label for={`size-${idPrefix}`}>{t('rowsPerPage')}</label>
      <select id={`size-${idPrefix}`} value={String(limit)} onChange={(e) => { onLimit(Number((e.currentTarget as HTMLSelectElement).value)) }}>
        {PAGE_SIZES.map((size) => <option key={size} value={String(size)}>{size}</option>)}
      </select>
      <button type="button" id={`first-${idPrefix}`} disabled={page?.hasPrev !== true} onClick={() => { onTurn('first') }}>{t('first')}</button>
      <button type="button" id={`previous-${idPrefix}`} disabled={page?.hasPrev !== true} onClick={() => { onTurn('previous') }}>{t('previous')}</button>
      <button type="button" id={`next-${idPrefix}`} disabled={page?.hasNext !== true} onClick={() => { onTurn('next') }}>{t('next')}</button>
      {canLast && <button type="button" id={`last-${idPrefix}`} disabled={page?.hasNext !== true} onClick={() => { onTurn('last') }}>{t('last')}</button>}
      {numbers !== undefined && onJump !== undefined && page !== undefined && <PageNumbers idPrefix={idPrefix} t={t} numbers={numbers} onJump={onJump} />}
    </div>
  )
}
