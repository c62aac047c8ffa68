import { EXIT_FAILURE, main } from './cli.js'
import { processIo } from './cli/io.js'

/**
 * The executable's command line: runs `rqs <argv>` and leaves the exit code
 * to the process. `started` is called once `rqs serve` is ready (the bundled
 * executable then keeps its code cache). The bundle's entry point: the
 * executable loads the bundle and calls this; src/bin.ts calls it unbundled.
 */
export function runExecutable (argv: string[], env: NodeJS.ProcessEnv, started?: () => void): void {
  const io = started === undefined ? processIo : { ...processIo, started }
  main(argv, env, io).then((code) => { process.exitCode = code }, (err: unknown) => {
    process.stderr.write(`rqs: ${(err as Error).stack ?? String(err)}\n`)
    process.exitCode = EXIT_FAILURE
  })
}
