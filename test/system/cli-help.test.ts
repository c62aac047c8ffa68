import { describe, expect, it } from 'vitest'
import { runCliToEnd } from '../helpers/process.js'

/** `rqs help X` prints what `rqs X --help` prints, for the commands that read their own arguments too. */
describe('rqs help X', () => {
  it.each(['import', 'token'])('rqs help %s prints exactly what the command\'s --help prints', async (command) => {
    // Processes: import, export and token print their own help to the process's stdout.
    const viaHelp = await runCliToEnd(['help', command])
    const viaFlag = await runCliToEnd([command, '--help'])
    expect(viaHelp.code).toBe(0)
    expect(viaFlag.code).toBe(0)
    expect(viaHelp.stdout.length).toBeGreaterThan(100)
    expect(viaHelp.stdout).toBe(viaFlag.stdout)
  }, 90_000)
})
