import { writeFileSync } from 'node:fs'
import { renderErrorsMarkdown } from '../src/http/errors/markdown.js'
import { errorCatalogue, SERVICES } from '../src/services/index.js'

// Regenerates docs/errors.md from the catalogue of every built-in service (test/http/errors/catalogue-route.test.ts checks it).
writeFileSync(new URL('../docs/errors.md', import.meta.url), renderErrorsMarkdown(errorCatalogue(SERVICES)))
