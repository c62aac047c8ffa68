import type { Translate } from '../i18n.js'
import type { Sort } from '../listing.js'
import { say, type ResourceSpec } from '../resources.js'

interface Props {
  spec: ResourceSpec
  t: Translate
  search: string
  sort: Sort | undefined
  onSearch: (text: string) => void
  /** Enter in the search box: search now, without waiting for typing to pause. */
  onSearchNow: () => void
  onSort: (sort: Sort | undefined) => void
  onReload: () => void
}

/** Search, the sort select (a phone has no column headers to press) and Reload. */
export function Toolbar ({ spec, t, search, sort, onSearch, onSearchNow, onSort, onReload }: Props) {
  const sortValue = sort === undefined ? '' : `${sort.desc ? '-' : ''}${sort.field}`
  const chooseSort = (value: string): void => {
    onSort(value === '' ? undefined : { field: value.replace(/^-/, ''), desc: value.startsWith('-') })
  }
  return (
    <div class="toolbar">
      <div class="search">
        <label for={`search-${spec.key}`}>{t('search')}</label>
        <input id={`search-${spec.key}`} type="search" value={search} aria-describedby={`search-hint-${spec.key}`}
          onInput={(e) => { onSearch((e.currentTarget as HTMLInputElement).value) }}
          onKeyDown={(e) => { if (e.key === 'Enter') onSearchNow() }} />
        <span id={`search-hint-${spec.key}`} class="muted">{say(t, spec.searchHint)}</span>
      </div>
      <div class="field sort-bar">
        <label for={`sort-${spec.key}`}>{t('sortBy')}</label>
        <select id={`sort-${spec.key}`} value={sortValue} onChange={(e) => { chooseSort((e.currentTarget as HTMLSelectElement).value) }}>
          <option value="">{t('sortDefault')}</option>
          {spec.fields.filter((f) => f.sortable !== false).flatMap((f) => [
            <option key={f.key} value={f.key}>{`${say(t, f.label)} (${t('ascending')})`}</option>,
            <option key={`-${f.key}`} value={`-${f.key}`}>{`${say(t, f.label)} (${t('descending')})`}</option>
          ])}
        </select>
      </div>
      <button type="button" onClick={onReload}>{t('reload')}</button>
    </div>
  )
}
