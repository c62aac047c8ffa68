import { fileURLToPath } from 'node:url'
import { Type } from '@sinclair/typebox'
import { optionGroup, type SectionOf } from '../../config/group.js'
import { option } from '../../config/option.js'
import { basePath, oneOf } from '../../config/readers.js'
import { STUDENT_ID_RULES } from './records.js'

/** The package's public/ folder (src/ and dist/ are siblings, so this holds under tsx and node). */
export const DEFAULT_ASSETS_DIR = fileURLToPath(new URL('../../../public', import.meta.url))

/** `config.students`: where the student records service is mounted, what it serves as assets, and how its ids are given. */
export const studentsOptions = optionGroup('students', Type.Object({
  // Base path the service is mounted under, e.g. `/students`.
  base: option(Type.String(), {
    default: '/students', flag: 'students-base', value: 'path', env: 'RQS_STUDENTS_BASE', read: basePath, help: 'base path of the student records service (default /students)'
  }),
  // Folder whose files are served under `{base}/assets/`.
  assetsDir: option(Type.String(), {
    default: DEFAULT_ASSETS_DIR, flag: 'assets-dir', value: 'dir', env: 'RQS_ASSETS_DIR', help: "folder served under {students-base}/assets/ (default the package's public/)"
  }),
  // How a create picks a student id; unset means the spec's rule (count). The stores keep the students with it whether the service runs or not.
  ids: option(Type.Optional(Type.Union(STUDENT_ID_RULES.map((rule) => Type.Literal(rule)))), {
    flag: 'student-ids', value: 'rule', env: 'RQS_STUDENT_IDS', read: oneOf(STUDENT_ID_RULES),
    help: 'student id rule: count (the spec: id = number of records, may reuse an id) or sequence (never reuses an id)'
  }),
  enabled: option(Type.Boolean(), {
    default: true, flag: 'no-students', env: 'RQS_NO_STUDENTS', negated: true, help: 'do not mount the student records service'
  })
}))

export type StudentsConfig = SectionOf<typeof studentsOptions>
