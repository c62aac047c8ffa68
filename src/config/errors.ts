/** Thrown for a flag or environment value that cannot be used; the CLI exits with code 2. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}
