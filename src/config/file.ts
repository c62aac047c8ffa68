import { readFileSync } from 'node:fs'
import { closestWord } from '../lib/suggest.js'
import { ConfigError } from './errors.js'
import type { ConfigFile, DeclaredOption } from './read.js'
import { RULES_KEY } from './rules.js'

/**
 * Reads a configuration file (`--config rqs.json`): one JSON object whose
 * keys are long flag names, exactly as `--help` lists them (`"port": 9000`,
 * `"store": "sqlite:./rqs.db"`, `"no-albums": true`). A key that is no option
 * is refused, naming it, so a typo cannot silently leave a default in place.
 * The values are read by resolveConfig with the options' own readers.
 * Beside the options, `"rules"` holds the built-in collections' rules
 * (./rules.ts), which no flag could carry.
 */
export function readConfigFile (path: string, options: readonly DeclaredOption[]): ConfigFile {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message
    throw new ConfigError(`cannot read the configuration file ${path}: ${reason}`)
  }
  let values: unknown
  try {
    values = JSON.parse(text)
  } catch (err) {
    throw new ConfigError(`${path} is not valid JSON: ${(err as Error).message}`)
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new ConfigError(`${path} must hold one JSON object of options, e.g. {"port": 9000}`)
  }
  const known = [...options.map((o) => o.flag), RULES_KEY]
  for (const key of Object.keys(values)) {
    if (known.includes(key)) continue
    const guess = closestWord(key, known)
    throw new ConfigError(`${path}: unknown option "${key}"${guess === undefined ? '' : ` (did you mean "${guess}"?)`}; the keys are the long option names of --help, without dashes`)
  }
  return { name: path, values: Object.fromEntries(Object.entries(values)) }
}
