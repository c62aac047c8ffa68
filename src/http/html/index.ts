/** The shared look of every HTML page. */
export { escapeHtml, renderPage } from './layout.js'
