#!/usr/bin/env node
import { EXIT_FAILURE, main } from './cli.js'

// The executable: runs the command line and leaves the exit code to the process.
main(process.argv.slice(2), process.env).then((code) => { process.exitCode = code }, (err: unknown) => {
  process.stderr.write(`rqs: ${(err as Error).stack ?? String(err)}\n`)
  process.exitCode = EXIT_FAILURE
})
