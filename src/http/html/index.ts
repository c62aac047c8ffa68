/** The shared look of every HTML page. */
export { escapeHtml, renderPage } from './layout.js'
export { errorPage } from './error-page.js'
export { withInlineCode } from './text.js'
