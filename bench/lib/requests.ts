/** The requests every row sends, and how rqs is started for them (shared by run.ts and profile.ts). */
import type { LoadRequest } from './load.js'
import type { ServerSpec } from './procs.js'
import {
  ADDRESS_INPUT, ADDRESS_PUT_INPUT, ALBUMS_DOCUMENT, FILTER_DOCUMENT, FILTER_VARIABLES, STUDENT, STUDENT_INPUT
} from '../servers/shared.js'

const json = { 'content-type': 'application/json' }
/** Issue 23: one filtered page of 50 students, over GraphQL and over REST (every seeded student is 36). */
const PAGE_AGE = 30
const STUDENTS_PAGE_DOCUMENT = 'query ($age: Int) { students(first: 50, filter: {age: {gte: $age}}) { edges { node { id firstName lastName age } } pageInfo { hasNextPage endCursor } } }'
export const R = {
  getStudent: { method: 'GET', path: '/students/0' },
  getAddress: { method: 'GET', path: '/addresses/1' },
  listStudents: { method: 'GET', path: '/students' },
  postStudent: { method: 'POST', path: '/students', body: JSON.stringify(STUDENT_INPUT), headers: json },
  putStudent: { method: 'PUT', path: '/students', body: JSON.stringify(STUDENT), headers: json },
  postAddress: { method: 'POST', path: '/addresses', body: JSON.stringify(ADDRESS_INPUT), headers: json },
  putAddress: { method: 'PUT', path: '/addresses/1', body: JSON.stringify(ADDRESS_PUT_INPUT), headers: json },
  graphqlPost: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: ALBUMS_DOCUMENT }), headers: json },
  graphqlGet: { method: 'GET', path: `/graphql?query=${encodeURIComponent(ALBUMS_DOCUMENT)}` },
  graphqlFilter: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: FILTER_DOCUMENT, variables: FILTER_VARIABLES }), headers: json },
  graphqlStudentsPage: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: STUDENTS_PAGE_DOCUMENT, variables: { age: PAGE_AGE } }), headers: json },
  restStudentsPage: { method: 'GET', path: `/students?limit=50&age[gte]=${PAGE_AGE}` }
} satisfies Record<string, LoadRequest>

/** rqs from dist/ (servers/rqs.mjs), seeded with `students` records through the store API. */
export function rqsSpec (label: string, students: number, extra: Partial<ServerSpec> = {}): ServerSpec {
  return {
    label,
    script: 'rqs.mjs',
    startTimeoutMs: 600_000,
    ...extra,
    env: { BENCH_STUDENTS: String(students), BENCH_STUDENT_INPUT: JSON.stringify(STUDENT_INPUT), BENCH_ADDRESS_INPUT: JSON.stringify(ADDRESS_INPUT), ...extra.env }
  }
}
