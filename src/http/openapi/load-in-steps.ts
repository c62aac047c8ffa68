import { readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join } from 'node:path'

/**
 * @fastify/swagger, its dependencies loaded a module or a few a turn of the
 * event loop first (`between` runs after each). Its document function
 * loads the YAML library, ≈ 70 modules whose loading in one go held the
 * event loop for 70–150 ms of CPU; one by one, no step takes long. Each
 * module is loaded once and kept as any require would keep it, so the
 * package then finds them loaded. Anything unexpected (another layout of a
 * dependency, a file that does not load alone) leaves it to the package's
 * own loading, as before.
 */
export async function importSwagger (between: () => Promise<void>): Promise<{ fastifySwagger: unknown }> {
  try {
    const fromPackage = createRequire(createRequire(import.meta.url).resolve('@fastify/swagger'))
    for (const file of modulesOf(fromPackage.resolve('yaml'))) {
      try { fromPackage(file) } catch { /* the package loads it, if it needs it */ }
      await between()
    }
    fromPackage('json-schema-resolver')
    await between()
  } catch { /* loaded in one go by the package */ }
  return await import('@fastify/swagger')
}

/** The CommonJS modules of a package whose entry is in its `dist` folder, the deepest first (they import fewer others). */
function modulesOf (entry: string): string[] {
  const dist = dirname(entry)
  if (basename(dist) !== 'dist') return []
  const files = (readdirSync(dist, { recursive: true }) as string[]).filter((f) => f.endsWith('.js')).map((f) => join(dist, f))
  return files.sort((a, b) => b.split('/').length - a.split('/').length || a.localeCompare(b))
}
