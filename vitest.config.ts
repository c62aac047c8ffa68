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
    // Each worker imports the server's modules once for all its files instead of once per file
    // (that import was about a third of the suite's CPU time). Tests therefore must not rely on
    // module state being fresh: each builds its own server, stores and configuration.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 60_000
  }
})
