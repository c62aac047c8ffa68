/**
 * One look for every HTML page the server renders: the same stylesheet,
 * favicon and site header. The stylesheet and favicon are built from this
 * folder (rqs.css, favicon.svg) by scripts/build-app.ts into dist/app/ and
 * served under /app/ by the web application plugin (src/services/app/).
 *
 * Pages built with this helper carry no inline script or style, so they work
 * under a Content-Security-Policy without 'unsafe-inline'.
 */

export const STYLESHEET_HREF = '/app/rqs.css'
export const FAVICON_HREF = '/app/favicon.svg'

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml (value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

export interface SiteLink {
  href: string
  label: string
}

/** The links of the site header, in order. A page may pass its own list. */
export const SITE_LINKS: readonly SiteLink[] = [
  { href: '/app/', label: 'App' },
  { href: '/docs/api', label: 'API' },
  { href: '/errors', label: 'Errors' },
  { href: '/docs/', label: 'Docs' }
]

export interface PageOptions {
  title: string
  /** Trusted HTML for <main>; escape every value put into it with escapeHtml. */
  body: string
  /** Language of the page (BCP 47). Default en. */
  lang?: string
  /** Module scripts to load (same-origin paths), deferred by nature. */
  scripts?: readonly string[]
  /** Extra stylesheets after the shared one. */
  stylesheets?: readonly string[]
  /** The header link of the current page gets aria-current="page". */
  current?: string
  links?: readonly SiteLink[]
  /** Trusted HTML placed before <main> inside <body>, e.g. a data element. */
  beforeMain?: string
}

/** A complete HTML document in the shared look. */
export function renderPage (opts: PageOptions): string {
  const links = (opts.links ?? SITE_LINKS).map((link) => {
    const current = link.href === opts.current ? ' aria-current="page"' : ''
    return `<a href="${escapeHtml(link.href)}"${current}>${escapeHtml(link.label)}</a>`
  }).join('')
  const styles = [STYLESHEET_HREF, ...(opts.stylesheets ?? [])].map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('\n')
  const scripts = (opts.scripts ?? []).map((src) => `<script type="module" src="${escapeHtml(src)}"></script>`).join('\n')
  return `<!doctype html>
<html lang="${escapeHtml(opts.lang ?? 'en')}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(opts.title)}</title>
<link rel="icon" href="${FAVICON_HREF}" type="image/svg+xml">
${styles}
${scripts}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header"><a class="brand" href="/"><img src="${FAVICON_HREF}" alt="" width="24" height="24"><span>rqs</span></a><nav class="site-nav" aria-label="Site">${links}</nav></header>
${opts.beforeMain ?? ''}<main id="main" tabindex="-1">
${opts.body}
</main>
</body>
</html>
`
}
