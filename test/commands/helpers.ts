import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough, Writable } from 'node:stream'
import { afterAll } from 'vitest'
import type { runImport } from '../../src/commands/import.js'
import type { CommandIO } from '../../src/commands/common.js'
import { tempDir } from '../stores/harness.js'

/** What the rqs import / rqs export tests share: running a command in-process, and scratch files. */
class Capture extends Writable {
  text = ''
  constructor (readonly isTTY = false, readonly columns = 100) { super() }
  override _write (chunk: Buffer, _encoding: string, done: () => void): void { this.text += chunk.toString(); done() }
}

export interface Run { code: number, stdout: string, stderr: string }

export async function run (command: typeof runImport, argv: string[], options: { tty?: boolean, stdin?: string, env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  const stdout = new Capture()
  const stderr = new Capture(options.tty === true)
  const stdin = new PassThrough()
  stdin.end(options.stdin ?? '')
  const io: CommandIO = { stdin, stdout, stderr, env: options.env ?? {} }
  const code = await command(argv, io)
  return { code, stdout: stdout.text, stderr: stderr.text }
}

export interface Scratch {
  dir: string
  /** A new NDJSON file holding `lines` (objects are serialised, strings written as they are). */
  file: (lines: unknown[] | string) => string
  /** `sqlite:PATH` of a new database file. */
  sqlite: () => string
}

/** A temp folder for the calling test file, removed after it. */
export function scratch (): Scratch {
  const tmp = tempDir()
  afterAll(() => { tmp.remove() })
  let files = 0
  return {
    dir: tmp.dir,
    file: (lines) => {
      const path = join(tmp.dir, `f${files++}.ndjson`)
      writeFileSync(path, typeof lines === 'string' ? lines : lines.map((l) => `${typeof l === 'string' ? l : JSON.stringify(l)}\n`).join(''))
      return path
    },
    sqlite: () => `sqlite:${join(tmp.dir, `db${files++}.sqlite`)}`
  }
}

export const students = (n: number, from = 0): Array<{ id: number, firstName: string, lastName: string, age: number }> =>
  Array.from({ length: n }, (_, i) => ({ id: from + i, firstName: `F${i % 5}`, lastName: `Ünïcødé "${i}"`, age: i % 100 }))
