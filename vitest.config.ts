import { createRequire } from 'node:module'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: {
    // Node resolves `graphql` to its CommonJS entry (no "exports" map); Vite would pick
    // index.mjs for our sources while graphql-http and graphql-jit load the CommonJS one:
    // two graphql instances ("another module or realm"). Use Node's choice everywhere.
    alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve('graphql') }]
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real servers and child processes; keep the 2-core machines calm.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 60_000
  }
})
