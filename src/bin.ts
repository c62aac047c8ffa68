#!/usr/bin/env node
import { runExecutable } from './executable.js'

// The executable as tsc writes it (npm run build replaces it with a loader of the bundle).
runExecutable(process.argv.slice(2), process.env)
