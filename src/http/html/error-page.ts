import { escapeHtml, renderPage } from './layout.js'

export interface ErrorPageOptions {
  status: number
  /** The catalogue's title and message for the code, in `lang`. */
  title: string
  message: string
  code: string
  /** The path asked for (no query), shown so the reader sees what they typed. */
  path: string
  lang: 'en' | 'de'
}

const WORDS = {
  en: { asked: 'You asked for', home: 'Home', docs: 'Documentation', code: 'Error code' },
  de: { asked: 'Angefragt war', home: 'Startseite', docs: 'Dokumentation', code: 'Fehlercode' }
}

/**
 * What a browser gets instead of a problem document when it opens an address
 * that has nothing (a mistyped link): the site's look, the status, a sentence
 * and the ways back. No script, so the site's Content-Security-Policy holds.
 */
export function errorPage (opts: ErrorPageOptions): string {
  const w = WORDS[opts.lang]
  return renderPage({
    title: `${opts.status} ${opts.title} — rqs`,
    lang: opts.lang,
    body: `<h1>${opts.status} — ${escapeHtml(opts.title)}</h1>
<p>${escapeHtml(opts.message)} ${w.asked} <code>${escapeHtml(opts.path)}</code>.</p>
<ul>
<li><a href="/">${w.home}</a></li>
<li><a href="/docs/">${w.docs}</a></li>
</ul>
<p>${w.code}: <a href="/errors/${escapeHtml(opts.code)}"><code>${escapeHtml(opts.code)}</code></a></p>`
  })
}
