import { writeFileSync } from 'node:fs'
import { renderErrorsMarkdown } from '../src/http/errors/markdown.js'

// Regenerates docs/errors.md from the error catalogue (test/http/errors-doc.test.ts checks it).
writeFileSync(new URL('../docs/errors.md', import.meta.url), renderErrorsMarkdown())
