import { escapeHtml } from './layout.js'

/**
 * Plain text for a page, with its `inline code` spans shown as <code>: the
 * catalogue's descriptions are written that way (they are Markdown in
 * docs/errors.md). Everything is escaped; only the <code> elements are ours.
 */
export function withInlineCode (text: string): string {
  return text.split(/(`[^`]+`)/).map((part) =>
    part.length > 2 && part.startsWith('`') && part.endsWith('`') ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : escapeHtml(part)
  ).join('')
}
