import { useEffect, useRef, useState } from 'preact/hooks'
import type { Translate } from '../i18n.js'

export type TokenReason = 'needed' | 'rejected' | 'manual'

interface Props {
  t: Translate
  reason: TokenReason
  hasToken: boolean
  onUse: (token: string) => void
  onForget: () => void
  onClose: () => void
}

/**
 * Where a person enters an access token when the server asks for one (401
 * with a Bearer challenge). The token is kept in sessionStorage: for this
 * tab only, gone when it closes.
 */
export function TokenPanel ({ t, reason, hasToken, onUse, onForget, onClose }: Props) {
  const [value, setValue] = useState('')
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => { input.current?.focus() }, [reason])
  const submit = (event: Event): void => {
    event.preventDefault()
    const token = value.trim()
    if (token !== '') onUse(token)
  }
  return (
    <section class="token-panel" aria-labelledby="token-title">
      <h2 id="token-title">{t('token')}</h2>
      {reason !== 'manual' && <p role="alert">{t(reason === 'rejected' ? 'tokenRejected' : 'tokenNeeded')}</p>}
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for="token-input">{t('token')}</label>
          <input id="token-input" ref={input} type="password" autoComplete="off" spellcheck={false} value={value}
            aria-describedby="token-hint" onInput={(e) => { setValue((e.currentTarget as HTMLInputElement).value) }} />
        </div>
        <button type="submit" class="primary">{t('useToken')}</button>
        {hasToken && <button type="button" class="danger" onClick={onForget}>{t('forgetToken')}</button>}
        {reason === 'manual' && <button type="button" onClick={onClose}>{t('close')}</button>}
      </form>
      <p id="token-hint" class="muted">{t('tokenHint')}</p>
    </section>
  )
}
