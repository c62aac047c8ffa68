import { main, type CliIo } from '../../src/cli.js'

/** Runs the command line in this process, collecting what it writes; resolves with the exit code and the text. */
export async function runMain (argv: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number, stdout: string, stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: { write: (text: string) => { stdout += text } },
    stderr: { write: (text: string) => { stderr += text } }
  }
  const code = await main(argv, env, io)
  return { code, stdout, stderr }
}
