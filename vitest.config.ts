import { createRequire } from 'node:module'
import { configDefaults, defineConfig } from 'vitest/config'

/**
 * Test lanes: each test file is in exactly one, by its folder or its name's
 * suffix only (test/lanes.test.ts checks). `npm test` runs them all;
 * `npm run test:<lane>` one (README, Development). Everything not claimed
 * here is `fast`: in-process tests on the memory and SQLite stores.
 */
export const LANES = {
  /** Needs PostgreSQL (DATABASE_URL; skipped, saying so, without it). */
  postgres: ['test/**/*-pg.test.ts'],
  /** Drives headless Chromium (/usr/bin/chromium). */
  browser: ['test/**/*-browser.test.ts'],
  /** Child processes, kill -9, outages, several instances, slow clients, multi-second timing. */
  system: ['test/system/**/*.test.ts'],
  /** Thousands of generated hostile requests. */
  fuzz: ['test/fuzz/**/*.test.ts'],
  /**
   * In-process files that need nothing else but take seconds on their own (a server per test,
   * long lists, many property runs), kept out of `fast` so it stays a quick loop: name such a
   * file `<name>.slow.test.ts` when it alone takes more than ~2 s.
   */
  slow: ['test/**/*.slow.test.ts']
} as const

/** The system lane's test timeout (ms); see the projects below. */
const SYSTEM_TEST_TIMEOUT_MS = 120_000
/** The browser lane's: a page's steps wait on Chromium, which a loaded machine slows as much as a child process. */
const BROWSER_TEST_TIMEOUT_MS = 60_000
/** Lanes whose tests drive other processes get a timeout that only catches a hang. */
const LANE_TIMEOUTS: Partial<Record<keyof typeof LANES, number>> = { system: SYSTEM_TEST_TIMEOUT_MS, browser: BROWSER_TEST_TIMEOUT_MS }

export default defineConfig({
  resolve: {
    // Node resolves `graphql` to its CommonJS entry (no "exports" map); Vite would pick
    // index.mjs for our sources while graphql-http and graphql-jit load the CommonJS one:
    // two graphql instances ("another module or realm"). Use Node's choice everywhere.
    alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve('graphql') }]
  },
  test: {
    // Integration tests start real servers and child processes; keep the 2-core machines calm.
    pool: 'forks',
    maxWorkers: 2,
    // Each worker imports the server's modules once for all its files instead of once per file
    // (that import was about a third of the suite's CPU time). Tests therefore must not rely on
    // module state being fresh: each builds its own server, stores and configuration.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'fast', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...Object.values(LANES).flat()] } },
      // A system or browser test's timeout only catches a hang: its processes start and work several times slower
      // on a loaded machine (spawning alone passed 20 s beside another suite; a browser test's steps too), so they get a wide one.
      ...Object.entries(LANES).map(([name, include]) => {
        const testTimeout = LANE_TIMEOUTS[name as keyof typeof LANES]
        return { extends: true as const, test: { name, include: [...include], ...(testTimeout === undefined ? {} : { testTimeout }) } }
      })
    ]
  }
})
