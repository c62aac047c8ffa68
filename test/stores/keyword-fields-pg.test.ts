import { describe, expect, it } from 'vitest'
import pg from 'pg'
import { DATABASE_URL, POSTGRES_SKIP_REASON, SKIP_POSTGRES, storeKinds } from './harness.js'
import { keywordFieldsSuite, POSTGRES_KEYWORDS } from './keyword-fields.suite.js'

keywordFieldsSuite(storeKinds(['postgres']))

describe.skipIf(SKIP_POSTGRES)(`PostgreSQL's keywords${SKIP_POSTGRES ? ` (${POSTGRES_SKIP_REASON})` : ''}`, () => {
  it('are all declared by the suite (pg_get_keywords of this server)', async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL })
    await client.connect()
    try {
      const words = (await client.query<{ word: string }>('SELECT word FROM pg_get_keywords()')).rows.map((r) => r.word)
      expect(words.filter((w) => !POSTGRES_KEYWORDS.includes(w))).toEqual([])
    } finally {
      await client.end()
    }
  })
})
