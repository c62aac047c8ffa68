/**
 * Swagger UI (/docs/api) in rqs' colours: the rqs name as the page title
 * and logo instead of Fastify's, and a way back to the entry point `/` at
 * the top. Everything is served from here (no CDN); the script is a file,
 * so the page keeps working under the Content-Security-Policy (no inline script).
 */

/** The page title. */
export const SWAGGER_UI_TITLE = 'rqs — API (Swagger UI)'

/** The logo of the top bar: the favicon's mark (src/http/html/favicon.svg) and the name. */
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40" width="120" height="40" role="img" aria-label="rqs">
<rect x="4" y="4" width="32" height="32" rx="7" fill="#1d4ed8"/><rect x="11" y="12" width="18" height="4" rx="1.5" fill="#fff"/><rect x="11" y="18.5" width="18" height="3" rx="1.5" fill="#bfdbfe"/><rect x="11" y="24" width="12" height="3" rx="1.5" fill="#bfdbfe"/>
<text x="44" y="29" font-family="system-ui, sans-serif" font-size="24" font-weight="700" fill="#fff">rqs</text>
</svg>`

const FAVICON_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/><rect x="7" y="8" width="18" height="4" rx="1.5" fill="#fff"/><rect x="7" y="14.5" width="18" height="3" rx="1.5" fill="#bfdbfe"/><rect x="7" y="20" width="12" height="3" rx="1.5" fill="#bfdbfe"/></svg>'

/** The top bar's logo links to `/`, and a labelled link beside it says so. */
export const HOME_LINK_SCRIPT = `(function () {
  'use strict'
  function link () {
    var logo = document.querySelector('#swagger-ui .topbar .topbar-wrapper > a.link')
    if (logo === null) return false
    logo.setAttribute('href', '/')
    logo.setAttribute('title', 'rqs home')
    if (document.getElementById('rqs-home') === null) {
      var home = document.createElement('a')
      home.id = 'rqs-home'
      home.href = '/'
      home.textContent = '\\u2190 rqs home'
      logo.insertAdjacentElement('afterend', home)
    }
    return true
  }
  if (link()) return
  var observer = new MutationObserver(function () { if (link()) observer.disconnect() })
  observer.observe(document.documentElement, { childList: true, subtree: true })
})()
`

/**
 * "Try it out" asks for the media type the response section shows first.
 * Swagger UI sends an Accept of any type until someone picks one in that section,
 * and at a service's base path any type chooses v1: an operation filed under v2 would
 * answer v1's envelope. A plugin (added to the options before Swagger UI
 * starts) makes the chosen type default to the first type of the operation's
 * first successful answer that has a body, as the page shows.
 */
export const ACCEPT_SCRIPT = `(function () {
  'use strict'
  var original = window.SwaggerUIBundle
  if (typeof original !== 'function') return
  function firstType (system, path, method) {
    var responses = system.specSelectors.specJson().getIn(['paths', path, method, 'responses'])
    if (!responses) return undefined
    var chosen
    responses.forEach(function (response, status) {
      if (chosen !== undefined || String(status).charAt(0) !== '2') return
      var content = response.get('content')
      if (content && content.size > 0) chosen = content.keySeq().first()
    })
    return chosen
  }
  function AcceptPlugin () {
    return {
      statePlugins: {
        oas3: {
          wrapSelectors: {
            responseContentType: function (selector, system) {
              return function (state, path, method) {
                return selector(state, path, method) || firstType(system, path, method)
              }
            }
          }
        }
      }
    }
  }
  function RqsSwaggerUIBundle (config) {
    config.plugins = (config.plugins || []).concat([AcceptPlugin])
    return original(config)
  }
  Object.assign(RqsSwaggerUIBundle, original)
  window.SwaggerUIBundle = RqsSwaggerUIBundle
})()
`

/**
 * Operations that answer a stream that does not end (Server-Sent Events):
 * "Try it out" would spin for ever, so their descriptions give a curl
 * command instead and the button is hidden. Swagger UI names an operation's
 * element `operations-<tag>-<operationId>`.
 */
export const STREAM_OPERATIONS = ['streamChanges', 'subscribeByGet', 'subscribe'] as const

const NO_TRY_OUT_CSS = `${STREAM_OPERATIONS.map((id) => `.swagger-ui .opblock[id$="-${id}"] .try-out`).join(',\n')} { display: none; }\n`

/** rqs' accent colour (src/http/html/rqs.css) for the top bar. */
const THEME_CSS = NO_TRY_OUT_CSS + `.swagger-ui .topbar { background-color: #1d4ed8; padding: 6px 0; }
.swagger-ui .topbar .topbar-wrapper { gap: 1rem; }
.swagger-ui .topbar .topbar-wrapper > a.link { flex: 0 0 auto; }
.swagger-ui .topbar .topbar-wrapper > a.link img { height: 40px; }
#rqs-home { color: #fff; font: 600 15px/1.5 system-ui, sans-serif; text-decoration: underline; white-space: nowrap; }
#rqs-home:focus-visible { outline: 2px solid #fff; outline-offset: 2px; }
`

/** Options of @fastify/swagger-ui beside the route prefix. */
export const SWAGGER_UI_OPTIONS = {
  logo: { type: 'image/svg+xml', content: Buffer.from(LOGO_SVG), href: '/', target: '_self' as const },
  theme: {
    title: SWAGGER_UI_TITLE,
    // Both run before Swagger UI starts (window.onload): rqs-accept.js must.
    js: [{ filename: 'rqs-home.js', content: HOME_LINK_SCRIPT }, { filename: 'rqs-accept.js', content: ACCEPT_SCRIPT }],
    css: [{ filename: 'rqs.css', content: THEME_CSS }],
    favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: Buffer.from(FAVICON_SVG) }]
  }
}
