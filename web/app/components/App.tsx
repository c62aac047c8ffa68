import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { AppCollection, AppPageConfig } from '../../../src/services/app/page-config.js'
import { Api } from '../api.js'
import { openFeed, type FeedStatus } from '../feed.js'
import { acceptLanguage, initialLanguage, LANGS, rememberLanguage, translator, type Lang } from '../i18n.js'
import { ADDRESSES, labelFields, say, specFromDeclaration, STUDENTS, type ResourceKey, type ResourceSpec } from '../resources.js'
import { forgetToken, readToken, storeToken } from '../token.js'
import { APP_BASE } from '../view-state.js'
import { navigate, placeFromLocation, type Place } from '../navigation.js'
import { RecordPage } from './RecordPage.js'
import { setReferenceTargets } from '../reference-targets.js'
import { WEBHOOKS_VIEW, WebhooksNavLink, WebhooksView, useWebhooksAccess } from './WebhooksView.js'
import type { Change } from '../feed.js'
import { ResourceView, type ChangeBus, type ChangeListener } from './ResourceView.js'
import { TokenPanel, type TokenReason } from './TokenPanel.js'
import { SchemaEditor } from './SchemaEditor.js'
import { useLiveCollections } from '../live-collections.js'
import { ListingContext } from '../operations.js'

/** Every collection the page shows: the built-in ones it knows, then those the server's user declared, each with where it is. */
type View = { spec: ResourceSpec, endpoint: { url: string, accept: string } }

function viewsOf (config: AppPageConfig): View[] {
  const views: View[] = []
  if (config.students !== undefined) views.push({ spec: STUDENTS, endpoint: config.students })
  if (config.addresses !== undefined) views.push({ spec: ADDRESSES, endpoint: config.addresses })
  // A reference is shown by its target's label field: the page's collections say theirs.
  const labels = labelFields(config.collections ?? [])
  for (const collection of config.collections ?? []) views.push({ spec: specFromDeclaration(collection, labels), endpoint: { url: collection.url, accept: 'application/json' } })
  return views
}

/**
 * The page's views and, after them, those of collections created since the page was served (GET /collections,
 * read again while it is open). A view whose collection now names its records otherwise (another label field or
 * description, or a reference into a collection whose label changed) is built again from the listing.
 */
function withCreated (views: readonly View[], created: readonly AppCollection[] = []): View[] {
  const labels = labelFields(created)
  const listed = new Map(created.map((c) => [c.name, c]))
  const followed = views.map((view) => {
    const now = listed.get(view.spec.key)
    return now === undefined || !namingChanged(view.spec, now, labels) ? view : { spec: specFromDeclaration(now, labels), endpoint: view.endpoint }
  })
  const fresh = created.filter((c) => !views.some((v) => v.spec.key === c.name))
  return [...followed, ...fresh.map((c) => ({ spec: specFromDeclaration(c, labels), endpoint: { url: c.url, accept: 'application/json' } }))]
}

/** Whether a view names its records, its collection or the records its references name otherwise than the listing says now. */
function namingChanged (spec: ResourceSpec, now: AppCollection, labels: ReadonlyMap<string, string>): boolean {
  const description = now.description === undefined || now.description.trim() === '' ? undefined : now.description
  return (now.label !== undefined && spec.labelField !== now.label) || spec.description !== description ||
    spec.fields.some((f) => f.references !== undefined && labels.has(f.references) && f.targetLabel !== labels.get(f.references))
}

/** Changes are handed on in bursts: at most one delivery per window, however many arrive (issue 22: 50 000 at once). */
const FOLD_MS = 150
/** Without a feed answer by then, the lists load anyway (the feed's first reset then reads once more). */
const FEED_WAIT_MS = 1_500

/** The application: a view per collection, the language switch, the token panel and the live feed. */
export function App ({ config }: { config: AppPageConfig }) {
  const [lang, setLang] = useState<Lang>(initialLanguage)
  const served = useMemo(() => viewsOf(config), [config])
  // The places the address may name: each collection, and the webhooks page where the server has webhooks.
  const [place, setPlace] = useState<Place>(() => placeFromLocation([...served.map((v) => v.spec.key), ...(config.webhooks === undefined ? [] : [WEBHOOKS_VIEW])]))
  const view: ResourceKey | undefined = place.view
  /** The lists wait for the feed's first answer, so a page load reads each list once (not once, then again on the feed's reset). */
  const [feedReady, setFeedReady] = useState(config.events === undefined)
  const [token, setToken] = useState<string | undefined>(readToken)
  /** The schema editor is open; `schemaChanges` counts the changes it applied (the listing is read again after each). */
  const [editing, setEditing] = useState(false)
  const [schemaChanges, setSchemaChanges] = useState(0)
  const [tokenPanel, setTokenPanel] = useState<TokenReason | null>(null)
  const [epoch, setEpoch] = useState(0)
  const [live, setLive] = useState<FeedStatus>('off')
  /** After a switch of view (not on the first load), focus goes to the new view's heading. */
  const navigated = useRef(false)
  const t = useMemo(() => translator(lang), [lang])

  // Requests read the language and token at the time they are made.
  const current = useRef({ lang, token })
  current.current = { lang, token }
  const api = useMemo(() => new Api({
    acceptLanguage: () => acceptLanguage(current.current.lang),
    token: () => current.current.token,
    onAuthRequired: ({ rejected }) => { setTokenPanel(rejected ? 'rejected' : 'needed') }
  }), [])
  // Collections created while the page is open get their views too (../live-collections.ts).
  const listed = useLiveCollections(config.collectionsListing, () => current.current.token, schemaChanges)
  const views = useMemo(() => withCreated(served, listed), [served, listed])
  const available = [...views.map((v) => v.spec.key), ...(config.webhooks === undefined ? [] : [WEBHOOKS_VIEW])]
  // Back and Forward read the places as they are then: collections created since the page loaded included.
  const availableNow = useRef(available)
  availableNow.current = available
  // The reference fields' pickers search the collections shown here (they search only once something is typed).
  useEffect(() => { setReferenceTargets(api, views) }, [api, views])

  const listeners = useRef(new Set<ChangeListener>())
  const changes = useMemo<ChangeBus>(() => ({
    subscribe: (listener) => { listeners.current.add(listener); return () => { listeners.current.delete(listener) } }
  }), [])

  useEffect(() => {
    document.documentElement.lang = lang
    document.title = `${t('appTitle')} · rqs`
    const skip = document.querySelector('.skip-link')
    if (skip !== null) skip.textContent = t('skipLink')
  }, [lang])

  useEffect(() => {
    // An old #/addresses link: the path form from now on (a record's page keeps its own).
    const { view: key, record } = placeFromLocation(available)
    if (key !== undefined && record === undefined && location.pathname !== APP_BASE + key) history.replaceState(null, '', APP_BASE + key + (location.pathname.startsWith(APP_BASE + key) ? location.search : ''))
    const onMove = (): void => { navigated.current = true; setPlace(placeFromLocation(availableNow.current)) }
    addEventListener('popstate', onMove)
    addEventListener('hashchange', onMove)
    const wait = setTimeout(() => { setFeedReady(true) }, FEED_WAIT_MS)
    return () => { removeEventListener('popstate', onMove); removeEventListener('hashchange', onMove); clearTimeout(wait) }
  }, [])

  const go = (event: MouseEvent, key: ResourceKey): void => {
    // The list shown already: nothing to do (its query stays).
    if (key === view && place.record === undefined && !(event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0)) { event.preventDefault(); return }
    navigate(APP_BASE + key, event)
  }

  useEffect(() => {
    if (config.events === undefined) return
    // A burst is folded: changes wait in `held` and go out together, once per window, never one DOM update each.
    let held: Change[] = []
    let timer: ReturnType<typeof setTimeout> | undefined
    const deliver = (): void => {
      timer = undefined
      const batch = held
      held = []
      for (const listener of listeners.current) listener(batch)
    }
    const close = openFeed({ url: config.events, token: () => current.current.token }, {
      change: (change) => { held.push(change); timer ??= setTimeout(deliver, FOLD_MS) },
      reset: () => {
        held = []
        clearTimeout(timer)
        timer = undefined
        const at = performance.now()
        for (const listener of listeners.current) listener({ reset: at })
        setFeedReady(true)
      },
      status: (status) => { setLive(status); if (status !== 'live') setFeedReady(true) },
      authRequired: () => { setTokenPanel((reason) => reason ?? 'needed') }
    })
    return () => { close(); clearTimeout(timer) }
  }, [token])

  const switchLanguage = (next: Lang): void => {
    rememberLanguage(next)
    setLang(next)
  }

  const applyToken = (value: string): void => {
    storeToken(value)
    setToken(value)
    setTokenPanel(null)
    setEpoch((n) => n + 1)
  }

  const dropToken = (): void => {
    forgetToken()
    setToken(undefined)
    setTokenPanel(null)
    setEpoch((n) => n + 1)
  }

  const webhooksAllowed = useWebhooksAccess(config.webhooks, () => current.current.token, token)
  const chosen = views.find((v) => v.spec.key === view)
  const spec = chosen?.spec
  const endpoint = chosen?.endpoint

  return (
    <ListingContext.Provider value={config.collectionsListing}>
      <div class="app-top">
        <nav class="views" aria-label={t('views')}>
          {views.map(({ spec: { key, title } }) => (
            <a key={key} href={APP_BASE + key} onClick={(e) => { go(e, key) }} aria-current={key === view ? 'page' : undefined}>{say(t, title)}</a>
          ))}
          {webhooksAllowed && <WebhooksNavLink t={t} current={view === WEBHOOKS_VIEW} onClick={(e) => { go(e, WEBHOOKS_VIEW) }} />}
        </nav>
        <div class="tools">
          {config.events !== undefined && live !== 'off' && (
            <span class={`live${live === 'live' ? ' on' : ''}`} title={t('liveTitle')}>{live === 'live' ? t('live') : t('liveConnecting')}</span>
          )}
          {listed !== undefined && (
            <button type="button" aria-pressed={editing ? 'true' : 'false'} onClick={() => { setEditing((open) => !open) }}>Schema</button>
          )}
          {token !== undefined && tokenPanel === null && (
            <button type="button" onClick={() => { setTokenPanel('manual') }}>{t('tokenButton')}</button>
          )}
          <div class="lang-switch" role="group" aria-label={t('language')}>
            {LANGS.map((code) => (
              <button key={code} type="button" lang={code} aria-pressed={code === lang ? 'true' : 'false'} onClick={() => { switchLanguage(code) }}>
                {code === 'en' ? 'English' : 'Deutsch'}
              </button>
            ))}
          </div>
        </div>
      </div>
      {tokenPanel !== null && (
        <TokenPanel t={t} reason={tokenPanel} hasToken={token !== undefined} onUse={applyToken} onForget={dropToken} onClose={() => { setTokenPanel(null) }} />
      )}
      {editing && listed !== undefined && (
        <SchemaEditor api={api} lang={lang} declared={listed.map((c) => c.name)} onApplied={() => { setSchemaChanges((n) => n + 1) }} onClose={() => { setEditing(false) }} />
      )}
      {view === WEBHOOKS_VIEW && config.webhooks !== undefined
        ? <WebhooksView url={config.webhooks} api={api} t={t} epoch={epoch} />
        : spec !== undefined && endpoint !== undefined && place.record !== undefined
          ? <RecordPage key={`${spec.key}/${place.record}`} spec={spec} endpoint={endpoint} api={api} t={t} id={place.record} views={views} changes={changes} epoch={epoch} history={config.events === undefined || !onFeed(config, spec.key) ? undefined : `${config.events}/history`} />
          : spec !== undefined && endpoint !== undefined
            ? <ResourceView key={spec.key} spec={spec} endpoint={endpoint} api={api} t={t} changes={changes} epoch={epoch} focusHeading={navigated.current} ready={feedReady} live={live} />
            : <p class="notice warn">{t('unavailable')}</p>}
    </ListingContext.Provider>
  )
}

/**
 * Whether the change feed carries a collection: the ones the server served at
 * its start (its own collections and those declared then). A collection
 * created while it runs has no changes on the feed, so its records' pages
 * show no history rather than ask for one the feed refuses.
 */
function onFeed (config: AppPageConfig, name: string): boolean {
  if (name === 'students') return config.students !== undefined
  if (name === 'addresses') return config.addresses !== undefined
  return (config.collections ?? []).some((c) => c.name === name)
}
