import { ERRORS_PATH } from './catalogue.js'
import type { ErrorCatalogue } from './error-catalogue.js'

/**
 * docs/errors.md, rendered from a catalogue (the built-in services', see
 * scripts/errors-doc.ts). A test fails when the file and this output differ;
 * `npm run docs:errors` rewrites it.
 */
export function renderErrorsMarkdown (catalogue: ErrorCatalogue): string {
  const lines = [
    '# Error catalogue',
    '',
    '<!-- Generated from src/http/errors/catalogue.ts, src/http/errors/messages/ and the services\' errors.ts by `npm run docs:errors`. Do not edit. -->',
    '',
    'Every REST error except the student service\'s v1 envelope is an RFC 9457 problem',
    '(`Content-Type: application/problem+json`) whose `errors` list holds one entry per failure, each',
    'with one of these codes. Codes are stable; clients may branch on them. The running server serves',
    `this catalogue at \`GET ${ERRORS_PATH}\` and \`GET ${ERRORS_PATH}/{code}\` (HTML for browsers, JSON otherwise).`,
    'The student service\'s v1 envelope words the same codes as its own message texts. The album query service',
    '(GraphQL) puts its code in `extensions.code` of each entry of `errors`; the codes marked GraphQL are used there only.',
    '',
    '| Code | Status | Title (en) | Message (en) | Message (de) | When and what to do |',
    '|---|---|---|---|---|---|'
  ]
  for (const code of catalogue.codes) {
    const entry = catalogue.entry(code)
    const { en, de } = entry.messages
    const scope = entry.scope === 'graphql' ? ' (GraphQL)' : ''
    lines.push(`| \`${code}\` | ${entry.status}${scope} | ${cell(en.title)} | ${cell(en.message)} | ${cell(de.message)} | ${cell(entry.description)} |`)
  }
  lines.push('')
  return lines.join('\n')
}

function cell (text: string): string {
  return text.replace(/\|/g, '\\|')
}
