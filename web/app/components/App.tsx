import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { AppPageConfig } from '../../../src/services/app/page-config.js'
import { Api } from '../api.js'
import { openFeed, type FeedStatus } from '../feed.js'
import { acceptLanguage, initialLanguage, LANGS, rememberLanguage, translator, type Lang } from '../i18n.js'
import { ADDRESSES, say, specFromDeclaration, STUDENTS, type ResourceKey, type ResourceSpec } from '../resources.js'
import { forgetToken, readToken, storeToken } from '../token.js'
import { ResourceView, type ChangeBus, type ChangeListener } from './ResourceView.js'
import { TokenPanel, type TokenReason } from './TokenPanel.js'

/** Every collection the page shows: the built-in ones it knows, then those the server's user declared, each with where it is. */
function viewsOf (config: AppPageConfig): Array<{ spec: ResourceSpec, endpoint: { url: string, accept: string } }> {
  const views: Array<{ spec: ResourceSpec, endpoint: { url: string, accept: string } }> = []
  if (config.students !== undefined) views.push({ spec: STUDENTS, endpoint: config.students })
  if (config.addresses !== undefined) views.push({ spec: ADDRESSES, endpoint: config.addresses })
  for (const collection of config.collections ?? []) views.push({ spec: specFromDeclaration(collection), endpoint: { url: collection.url, accept: 'application/json' } })
  return views
}

function viewFromHash (available: readonly ResourceKey[]): ResourceKey | undefined {
  const wanted = location.hash.replace(/^#\/?/, '')
  return available.find((key) => key === wanted) ?? available[0]
}

/** The application: a view per collection, the language switch, the token panel and the live feed. */
export function App ({ config }: { config: AppPageConfig }) {
  const views = useMemo(() => viewsOf(config), [config])
  const available = views.map((v) => v.spec.key)
  const [lang, setLang] = useState<Lang>(initialLanguage)
  const [view, setView] = useState<ResourceKey | undefined>(() => viewFromHash(available))
  const [token, setToken] = useState<string | undefined>(readToken)
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
    const onHash = (): void => { navigated.current = true; setView(viewFromHash(available)) }
    addEventListener('hashchange', onHash)
    return () => { removeEventListener('hashchange', onHash) }
  }, [])

  useEffect(() => {
    if (config.events === undefined) return
    return openFeed({ url: config.events, token: () => current.current.token }, {
      change: (change) => { for (const listener of listeners.current) listener(change) },
      reset: () => { for (const listener of listeners.current) listener('reset') },
      status: setLive,
      authRequired: () => { setTokenPanel((reason) => reason ?? 'needed') }
    })
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

  const chosen = views.find((v) => v.spec.key === view)
  const spec = chosen?.spec
  const endpoint = chosen?.endpoint

  return (
    <>
      <div class="app-top">
        <nav class="views" aria-label={t('views')}>
          {views.map(({ spec: { key, title } }) => (
            <a key={key} href={`#/${key}`} aria-current={key === view ? 'page' : undefined}>{say(t, title)}</a>
          ))}
        </nav>
        <div class="tools">
          {config.events !== undefined && live !== 'off' && (
            <span class={`live${live === 'live' ? ' on' : ''}`} title={t('liveTitle')}>{live === 'live' ? t('live') : t('liveConnecting')}</span>
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
      {spec !== undefined && endpoint !== undefined
        ? <ResourceView key={spec.key} spec={spec} endpoint={endpoint} api={api} t={t} changes={changes} epoch={epoch} focusHeading={navigated.current} />
        : <p class="notice warn">{t('unavailable')}</p>}
    </>
  )
}
