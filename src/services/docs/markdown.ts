import MarkdownIt from 'markdown-it'
import sanitizeHtml from 'sanitize-html'

/**
 * Markdown to HTML for the documentation pages: markdown-it renders (raw HTML
 * in the source is escaped, not passed through), and sanitize-html then keeps
 * only the elements and attributes a document needs, so a page can never carry
 * a script or an inline handler whatever the file holds.
 */
const renderer = new MarkdownIt({ html: false, linkify: false, typographer: false })

const ALLOWED = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'h1', 'h2', 'del'],
  allowedAttributes: { a: ['href', 'title'], img: ['src', 'alt', 'title'], th: ['style'], td: ['style'], code: ['class'] },
  allowedStyles: { '*': { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto']
}

export function markdownToHtml (markdown: string): string {
  return sanitizeHtml(renderer.render(markdown), ALLOWED)
}

/** The first `# heading` of a document, or its file name. */
export function titleOf (markdown: string, fallback: string): string {
  const match = /^# (.+)$/m.exec(markdown)
  return match?.[1]?.trim() ?? fallback
}
