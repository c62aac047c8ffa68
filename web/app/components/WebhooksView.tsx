import { useEffect, useRef, useState } from 'preact/hooks'
import type { Api } from '../api.js'
import type { Translate } from '../i18n.js'
import type { Problem } from '../problem.js'
import { APP_BASE } from '../view-state.js'
import { WEBHOOKS_VIEW } from '../../../src/services/app/page-config.js'
import { deliveriesOf, eventList, mayManageWebhooks, webhooksOf, webhookWords, type Delivery, type Webhook } from '../webhooks.js'
import { focusById, type Status } from './view-context.js'

export { WEBHOOKS_VIEW }

const JSON_TYPE = 'application/json'
/** How many deliveries a webhook's list shows (newest first). */
const DELIVERIES_SHOWN = 50

/** Whether the token in use may manage webhooks (asked again when the token changes); false where the server has none. */
export function useWebhooksAccess (url: string | undefined, token: () => string | undefined, tokenNow: string | undefined): boolean {
  const [allowed, setAllowed] = useState(false)
  useEffect(() => {
    if (url === undefined) return
    let current = true
    void mayManageWebhooks(url, token()).then((ok) => { if (current) setAllowed(ok) })
    return () => { current = false }
  }, [url, tokenNow])
  return allowed
}

/** The views' tab of the webhooks page. */
export function WebhooksNavLink ({ t, current, onClick }: { t: Translate, current: boolean, onClick: (event: MouseEvent) => void }) {
  return <a href={APP_BASE + WEBHOOKS_VIEW} onClick={onClick} aria-current={current ? 'page' : undefined}>{webhookWords(t.lang)('webhooks')}</a>
}

interface Props {
  /** The webhooks API (`/webhooks`). */
  url: string
  api: Api
  t: Translate
  /** Changes when a token was given: the list is read again. */
  epoch: number
}

/**
 * The webhooks page for admin tokens: the webhooks, a form to create one
 * (its secret shown once), and per webhook ping, secret rotation (the new
 * secret shown once), enable or disable, delete, and its deliveries with
 * their status and a retry.
 */
export function WebhooksView ({ url, api, t, epoch }: Props) {
  const w = webhookWords(t.lang)
  const [hooks, setHooks] = useState<Webhook[] | undefined>(undefined)
  const [problem, setProblem] = useState<Problem | undefined>(undefined)
  const [status, setStatus] = useState<Status | null>(null)
  /** A secret shown once (after a create or a rotation), until the person moves on. */
  const [secret, setSecret] = useState<string | undefined>(undefined)
  const [form, setForm] = useState({ url: '', events: '*', filter: '', description: '' })
  const [formErrors, setFormErrors] = useState<string[]>([])
  const [busy, setBusy] = useState(false)
  const [open, setOpen] = useState<string | undefined>(undefined)
  const [deliveries, setDeliveries] = useState<Delivery[] | undefined>(undefined)
  /** The webhook a delete waits on the person's confirmation for. */
  const [removing, setRemoving] = useState<Webhook | undefined>(undefined)

  const problemText = (p: Problem): string => {
    if (p.network === true) return t('networkError')
    const messages = p.errors.map((e) => e.message)
    return messages.length > 0 ? messages.join(' ') : (p.title ?? t('serverError', { status: p.status }))
  }
  const failed = (p: Problem | undefined, status: number): void => {
    setSecret(undefined)
    setStatus({ kind: 'error', text: problemText(p ?? { status, errors: [] }) })
  }

  const load = async (): Promise<void> => {
    const result = await api.request('GET', url, { accept: JSON_TYPE })
    if (!result.ok) { setProblem(result.problem ?? { status: result.status, errors: [] }); return }
    setProblem(undefined)
    setHooks(webhooksOf(result.body))
  }
  const loadDeliveries = async (id: string): Promise<void> => {
    const result = await api.request('GET', `${url}/${id}/deliveries?limit=${DELIVERIES_SHOWN}`, { accept: JSON_TYPE })
    if (!result.ok) { failed(result.problem, result.status); return }
    setDeliveries(deliveriesOf(result.body))
  }
  useEffect(() => { void load() }, [epoch])
  useEffect(() => {
    setDeliveries(undefined)
    if (open !== undefined) void loadDeliveries(open)
  }, [open])

  const create = async (event: Event): Promise<void> => {
    event.preventDefault()
    if (busy) return
    setBusy(true)
    const body: Record<string, unknown> = { url: form.url.trim(), events: eventList(form.events) }
    if (form.filter.trim() !== '') body.filter = form.filter.trim()
    if (form.description.trim() !== '') body.description = form.description.trim()
    const result = await api.request('POST', url, { accept: JSON_TYPE, body })
    setBusy(false)
    if (!result.ok) {
      const p = result.problem ?? { status: result.status, errors: [] }
      setFormErrors([problemText(p)])
      return
    }
    const made = result.body as Webhook & { secret: string }
    setFormErrors([])
    setForm({ url: '', events: '*', filter: '', description: '' })
    setStatus({ kind: 'ok', text: w('created', { url: made.url }) })
    setSecret(w('secret', { secret: made.secret }))
    await load()
    focusById('webhook-secret')
  }

  const act = async (hook: Webhook, action: 'ping' | 'rotate' | 'enable' | 'disable' | 'delete'): Promise<void> => {
    const at = `${url}/${hook.id}`
    const result = action === 'ping'
      ? await api.request('POST', `${at}/ping`, { accept: JSON_TYPE })
      : action === 'rotate'
        ? await api.request('POST', `${at}/rotate-secret`, { accept: JSON_TYPE })
        : action === 'delete'
          ? await api.request('DELETE', at, { accept: JSON_TYPE })
          : await api.request('PATCH', at, { accept: JSON_TYPE, body: { enabled: action === 'enable' } })
    if (!result.ok) { failed(result.problem, result.status); return }
    setSecret(undefined)
    if (action === 'ping') {
      const sent = result.body as Delivery
      const outcome = sent.status === null ? w('pingFailed', { error: sent.error ?? '' }) : w('pingStatus', { status: sent.status, ms: sent.durationMs ?? 0 })
      setStatus({ kind: sent.state === 'delivered' ? 'ok' : 'warn', text: w('pinged', { url: hook.url, result: outcome }) })
      if (open === hook.id) void loadDeliveries(hook.id)
      return
    }
    if (action === 'rotate') {
      const rotated = result.body as Webhook & { secret: string }
      setStatus(null)
      setSecret(w('secretRotated', { url: hook.url, secret: rotated.secret, until: new Date(rotated.previousSecretValidUntil ?? Date.now()).toLocaleString(t.lang) }))
      focusById('webhook-secret')
    }
    if (action === 'delete') {
      if (open === hook.id) setOpen(undefined)
      setStatus({ kind: 'ok', text: w('removed', { url: hook.url }) })
    }
    await load()
  }

  const retry = async (hook: Webhook, delivery: Delivery): Promise<void> => {
    const result = await api.request('POST', `${url}/${hook.id}/deliveries/${delivery.id}/retry`, { accept: JSON_TYPE })
    if (!result.ok) { failed(result.problem, result.status); return }
    setStatus({ kind: 'ok', text: w('retried', { id: delivery.id }) })
    await loadDeliveries(hook.id)
  }

  const when = (iso: string | null): string => iso === null ? '' : new Date(iso).toLocaleString(t.lang)
  const openHook = hooks?.find((h) => h.id === open)

  return (
    <section aria-labelledby="heading-webhooks" class="webhooks-page">
      <h1 id="heading-webhooks" tabIndex={-1}>{w('webhooks')}</h1>
      <p class="muted">{w('intro')}</p>
      <div class="banner-slot">
        <p role="status" class={status === null ? 'visually-hidden' : `notice ${status.kind}`}>{status?.text ?? ''}</p>
      </div>
      {secret !== undefined && (
        <div class="notice warn webhook-secret" id="webhook-secret" tabIndex={-1} role="alert">
          <p><code>{secret}</code></p>
          <p>{w('copyNow')}</p>
        </div>
      )}
      {problem !== undefined && (
        <div class="notice error" role="alert">
          <p>{problem.status === 403 ? t('forbidden') : problemText(problem)}</p>
          <button type="button" onClick={() => { void load() }}>{t('retry')}</button>
        </div>
      )}

      <form noValidate onSubmit={(e) => { void create(e) }}>
        <fieldset class="add-form">
          <legend>{w('newWebhook')}</legend>
          <div class="fields">
            <div class="field">
              <span class="label-line"><label for="webhook-url">{w('url')}</label><span class="required-mark" aria-hidden="true"> *</span></span>
              <input id="webhook-url" type="url" aria-required="true" autoComplete="off" placeholder="https://" value={form.url} onInput={(e) => { const url = e.currentTarget.value; setForm((f) => ({ ...f, url })) }} />
            </div>
            <div class="field">
              <span class="label-line"><label for="webhook-events">{w('events')}</label><span class="required-mark" aria-hidden="true"> *</span></span>
              <input id="webhook-events" type="text" aria-required="true" aria-describedby="webhook-events-hint" autoComplete="off" value={form.events} onInput={(e) => { const events = e.currentTarget.value; setForm((f) => ({ ...f, events })) }} />
              <span id="webhook-events-hint" class="muted">{w('eventsHint')}</span>
            </div>
            <div class="field">
              <label for="webhook-filter">{w('filter')}</label>
              <input id="webhook-filter" type="text" aria-describedby="webhook-filter-hint" autoComplete="off" value={form.filter} onInput={(e) => { const filter = e.currentTarget.value; setForm((f) => ({ ...f, filter })) }} />
              <span id="webhook-filter-hint" class="muted">{w('filterHint')}</span>
            </div>
            <div class="field">
              <label for="webhook-description">{w('description')}</label>
              <input id="webhook-description" type="text" autoComplete="off" value={form.description} onInput={(e) => { const description = e.currentTarget.value; setForm((f) => ({ ...f, description })) }} />
            </div>
          </div>
          <div class="form-actions">
            <button type="submit" class="primary" disabled={busy}>{w('create')}</button>
            {formErrors.length > 0 && <p class="field-error" role="alert">{formErrors.join(' ')}</p>}
          </div>
        </fieldset>
      </form>

      {hooks !== undefined && hooks.length === 0 && <p class="muted">{w('none')}</p>}
      {hooks !== undefined && hooks.length > 0 && (
        <ul class="webhook-list">
          {hooks.map((hook) => (
            <li key={hook.id} class="webhook" data-id={hook.id}>
              <p class="webhook-url"><strong>{hook.url}</strong> <span class={`webhook-state ${hook.enabled ? 'on' : 'off'}`}>{hook.enabled ? w('enabled') : hook.disabledReason === null ? w('disabled') : w('disabledBecause', { reason: hook.disabledReason })}</span></p>
              <p class="muted">{w('events')}: <code>{hook.events.join(', ')}</code>{hook.filter === null ? '' : ` · ${w('filter')}: `}{hook.filter !== null && <code>{hook.filter}</code>}{hook.description === '' ? '' : ` · ${hook.description}`}</p>
              <div class="form-actions" role="group" aria-label={`${w('actions')}: ${hook.url}`}>
                <button type="button" onClick={() => { void act(hook, 'ping') }}>{w('ping')}</button>
                <button type="button" onClick={() => { void act(hook, 'rotate') }}>{w('rotate')}</button>
                <button type="button" onClick={() => { void act(hook, hook.enabled ? 'disable' : 'enable') }}>{hook.enabled ? w('disable') : w('enable')}</button>
                <button type="button" aria-expanded={open === hook.id ? 'true' : 'false'} onClick={() => { setOpen(open === hook.id ? undefined : hook.id) }}>{open === hook.id ? w('hideDeliveries') : w('showDeliveries')}</button>
                <button type="button" class="danger" id={`remove-${hook.id}`} onClick={() => { setRemoving(hook) }}>{w('remove')}</button>
              </div>
            </li>
          ))}
        </ul>
      )}

      {removing !== undefined && (
        <ConfirmDialog title={w('confirmRemove', { url: removing.url })} confirm={w('remove')} cancel={t('cancel')}
          onConfirm={() => { const hook = removing; setRemoving(undefined); void act(hook, 'delete').then(() => { focusById('webhook-url') }) }}
          onCancel={() => { const id = removing.id; setRemoving(undefined); focusById(`remove-${id}`) }} />
      )}

      {openHook !== undefined && (
        <section class="deliveries" aria-labelledby="deliveries-heading">
          <h2 id="deliveries-heading">{w('deliveriesOf', { url: openHook.url })}</h2>
          <button type="button" onClick={() => { void loadDeliveries(openHook.id) }}>{w('refresh')}</button>
          {deliveries !== undefined && deliveries.length === 0 && <p class="muted">{w('noDeliveries')}</p>}
          {deliveries !== undefined && deliveries.length > 0 && (
            <div class="table-scroll">
              <table class="deliveries-table">
                <thead>
                  <tr>
                    <th scope="col">{w('event')}</th><th scope="col">{w('state')}</th><th scope="col" class="num">{w('attempts')}</th>
                    <th scope="col" class="num">{w('status')}</th><th scope="col" class="num">{w('duration')}</th>
                    <th scope="col">{w('lastAttempt')}</th><th scope="col">{w('nextAttempt')}</th><th scope="col"><span class="visually-hidden">{w('actions')}</span></th>
                  </tr>
                </thead>
                <tbody>
                  {deliveries.map((d) => (
                    <tr key={d.id} data-id={d.id} data-state={d.state}>
                      <td>{d.event}</td>
                      <td>{w(d.state)}{d.error === null ? '' : ` (${d.error})`}</td>
                      <td class="num">{d.attempts}</td>
                      <td class="num">{d.status ?? ''}</td>
                      <td class="num">{d.durationMs === null ? '' : `${d.durationMs} ms`}</td>
                      <td>{when(d.lastAttemptAt)}</td>
                      <td>{when(d.nextAttemptAt)}</td>
                      <td>{d.state !== 'delivered' && <button type="button" onClick={() => { void retry(openHook, d) }}>{w('retry')}</button>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </section>
  )
}

/** A modal question before a delete: the browser keeps focus inside it, and Escape cancels. */
function ConfirmDialog ({ title, confirm, cancel, onConfirm, onCancel }: { title: string, confirm: string, cancel: string, onConfirm: () => void, onCancel: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const element = dialog.current
    if (element !== null && !element.open) element.showModal()
    return () => { if (element?.open === true) element.close() }
  }, [])
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onCancel={(e) => { e.preventDefault(); onCancel() }}>
      <h2 id="confirm-title">{title}</h2>
      <div class="dialog-actions">
        <button type="button" autoFocus onClick={onCancel}>{cancel}</button>
        <button type="button" class="danger primary" onClick={onConfirm}>{confirm}</button>
      </div>
    </dialog>
  )
}
