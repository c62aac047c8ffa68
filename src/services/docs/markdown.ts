import { posix } from 'node:path'
import MarkdownIt, { type Token } from 'markdown-it'
import sanitizeHtml from 'sanitize-html'

/**
 * Markdown to HTML for the documentation pages: markdown-it renders (raw HTML
 * in the source is escaped, not passed through), and sanitize-html then keeps
 * only the elements and attributes a document needs, so a page can never carry
 * a script or an inline handler whatever the file holds.
 *
 * Headings get GitHub's ids (`## Host names (DNS rebinding)` → `host-names-dns-rebinding`),
 * so the `#anchor` links written for GitHub work on the served pages too.
 */
const renderer = new MarkdownIt({ html: false, linkify: false, typographer: false })

/** What a rendering needs to know of the document: where it lives in the package, e.g. `README.md` or `docs/errors.md`. */
interface RenderEnv {
  path?: string
}

renderer.core.ruler.push('heading_ids', (state) => {
  const seen = new Map<string, number>()
  const tokens = state.tokens
  tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return
    const slug = slugOf(textOf(tokens[i + 1]))
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    token.attrSet('id', count === 0 ? slug : `${slug}-${count}`)
  })
})

// Relative links and images are written for the repository (README → docs/x.md, docs → ../README.md);
// on the site they point to where /docs/ serves the same file.
renderer.core.ruler.push('site_links', (state) => {
  const path = (state.env as RenderEnv).path
  if (path === undefined) return
  for (const block of state.tokens) {
    for (const token of block.children ?? []) {
      const attr = token.type === 'link_open' ? 'href' : token.type === 'image' ? 'src' : undefined
      if (attr === undefined) continue
      const target = token.attrGet(attr)
      if (target !== null) token.attrSet(attr, sitePathOf(target, path))
    }
  }
})

const HEADINGS = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6']

const ALLOWED = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'h1', 'h2', 'del'],
  allowedAttributes: {
    a: ['href', 'title'],
    img: ['src', 'alt', 'title'],
    th: ['style'],
    td: ['style'],
    code: ['class'],
    ...Object.fromEntries(HEADINGS.map((h) => [h, ['id']]))
  },
  allowedStyles: { '*': { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto']
}

/**
 * @param path where the document lives in the package (`README.md`, `docs/x.md`): relative links
 *   and images in it are rewritten to the site's /docs/ paths. Without it, links are left as written.
 */
export function markdownToHtml (markdown: string, path?: string): string {
  const env: RenderEnv = { path }
  return sanitizeHtml(renderer.render(withoutCommentLines(markdown), env), ALLOWED)
}

/**
 * A line holding only an HTML comment (`<!-- cli:start -->`, a marker for the
 * tools that keep the README in step) is invisible on GitHub; with raw HTML
 * escaped it would be shown literally, so it goes before rendering. Inside a
 * fenced code block it is content, and stays.
 */
export function withoutCommentLines (markdown: string): string {
  let fence: string | undefined
  return markdown.split('\n').filter((line) => {
    const opened = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (opened !== undefined) {
      if (fence === undefined) fence = opened
      else if (opened.startsWith(fence)) fence = undefined
      return true
    }
    return fence !== undefined || !/^\s{0,3}<!--.*-->\s*$/.test(line)
  }).join('\n')
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slugOf (text: string): string {
  return text.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
}

function textOf (inline: Token | undefined): string {
  return (inline?.children ?? []).filter((t) => t.type === 'text' || t.type === 'code_inline').map((t) => t.content).join('')
}

/**
 * Where a link written in the package file at `from` leads on the site: files
 * under docs/ and the README are served under /docs/; absolute URLs, anchors
 * and site paths stay as they are.
 */
export function sitePathOf (target: string, from: string): string {
  if (/^([a-z][a-z0-9+.-]*:|\/|#)/i.test(target)) return target
  const [file = '', ...rest] = target.split('#')
  const anchor = rest.length === 0 ? '' : `#${rest.join('#')}`
  const resolved = posix.normalize(posix.join(posix.dirname(from), file))
  if (resolved === 'README.md') return `/docs/README.md${anchor}`
  if (resolved.startsWith('docs/')) return `/${resolved}${anchor}`
  return target
}
