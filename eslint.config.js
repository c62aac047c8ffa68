// @ts-check
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/** Only src/stores/index.ts opens a concrete store; everything else uses the contract in src/domain. */
const CONCRETE_STORES = { group: ['**/stores/memory/**', '**/stores/sqlite/**', '**/stores/postgres/**'], message: 'Only src/stores opens a concrete store: use the contract in src/domain.' }

/**
 * Forbids imports of the given path patterns (the layers' direction, docs/architecture.md). ESLint
 * keeps one set of options per rule for a file, so every block repeats the rule all of src follows.
 */
const forbid = (message, ...group) => ({ 'no-restricted-imports': ['error', { patterns: [CONCRETE_STORES, ...(group.length > 0 ? [{ group, message }] : [])] }] })

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'public/graphiql/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error'
    }
  },
  {
    // Type-aware rules: a promise nobody awaits loses its error (an unhandled rejection ends the process).
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error'
    }
  },
  { files: ['src/**/*.ts'], ignores: ['src/stores/**'], rules: forbid('') },
  // Imports only go down: domain ◀ stores ◀ http ◀ services ◀ server, cli (docs/architecture.md).
  {
    files: ['src/domain/**/*.ts'],
    rules: forbid('The domain layer is the bottom: it imports nothing of the layers above it.',
      '**/http/**', '**/stores/**', '**/services/**', '**/config/**', '**/config.js', '**/cli/**', '**/commands/**', '**/data/**', '**/server.js')
  },
  {
    files: ['src/stores/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ message: 'A store knows nothing of HTTP or of the services: import the contract from src/domain.', group: ['**/http/**', '**/services/**', '**/cli/**', '**/commands/**', '**/server.js'] }] }] }
  },
  {
    // The server's own configuration knows no service: each brings its option group in its descriptor (src/options.ts composes them).
    files: ['src/config/**/*.ts', 'src/config.ts'],
    rules: forbid('The configuration core knows no service and no HTTP: a service brings its options in its descriptor; src/options.ts composes them.',
      '**/services/**', '**/http/**', '**/options.js', '**/cli/**', '**/commands/**')
  },
  {
    files: ['src/http/errors/**/*.ts'],
    rules: forbid('The error pipeline imports nothing else of src/http (every other part imports it).',
      '../transport/**', '../rest/**', '../operations/**', '../openapi/**', '../security/**', '../../services/**')
  },
  {
    // Tests read arbitrary JSON bodies; typing every one would hide the assertions.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' }
  }
)
