import { parseArgs } from 'node:util'
import type { CliCommand } from '../cli/command.js'
import { checkName, checkRole, checkSubject, generateToken, isScope, SCOPES, tokenEntry, type Scope } from '../http/security/index.js'
const USAGE = `Usage: rqs token --name NAME [--scopes read,write,metrics,admin] [--roles LIST] [--sub SUBJECT] [--json]

Prints a new random access token (256 bits, base64url) and the entry to add
to the tokens file (--auth-tokens). Only the entry's SHA-256 is stored on the
server: keep the token itself secret, it is shown once.

  --name NAME      who uses the token (logged as the principal), e.g. ci
  --scopes LIST    read, write, metrics and/or admin, comma-separated (default read)
  --roles LIST     roles record rules test (@request.auth.roles), comma-separated, e.g. editor
  --sub SUBJECT    the subject record rules compare (@request.auth.sub; default the name)
  --json           print {"token": …, "entry": {…}} for scripts
`

/** `rqs token …`: returns the exit code (0, or 2 for bad usage). */
export function tokenCommand (argv: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): number {
  let values
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { name: { type: 'string' }, scopes: { type: 'string' }, roles: { type: 'string' }, sub: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false
    }))
  } catch (e) {
    err.write(`rqs token: ${(e as Error).message}\n\n${USAGE}`)
    return 2
  }
  if (values.help === true) { out.write(USAGE); return 0 }
  const name = values.name
  if (name === undefined) { err.write(`rqs token: --name is required\n\n${USAGE}`); return 2 }
  const nameProblem = checkName(name)
  if (nameProblem !== undefined) { err.write(`rqs token: --name: ${nameProblem}\n`); return 2 }
  const scopes = (values.scopes ?? 'read').split(',').map((s) => s.trim()).filter((s) => s !== '')
  const unknown = scopes.filter((s) => !isScope(s))
  if (scopes.length === 0 || unknown.length > 0) {
    err.write(`rqs token: --scopes must list ${SCOPES.join(', ')}${unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : ''}\n`)
    return 2
  }

  const roles = (values.roles ?? '').split(',').map((r) => r.trim()).filter((r) => r !== '')
  const badRole = roles.find((r) => checkRole(r) !== undefined)
  if (badRole !== undefined) { err.write(`rqs token: --roles: ${JSON.stringify(badRole)}: ${checkRole(badRole) as string}\n`); return 2 }
  if (values.sub !== undefined && checkSubject(values.sub) !== undefined) { err.write(`rqs token: --sub: ${checkSubject(values.sub) as string}\n`); return 2 }

  const token = generateToken()
  const entry = tokenEntry(token, name, [...new Set(scopes as Scope[])], { ...(values.sub === undefined ? {} : { sub: values.sub }), roles: [...new Set(roles)] })
  if (values.json === true) {
    out.write(`${JSON.stringify({ token, entry })}\n`)
  } else {
    out.write([
      'Token (give it to the client; it is shown only now):',
      `  ${token}`,
      'Entry for the tokens file {"tokens":[…]} (then restart rqs, or send it SIGHUP):',
      `  ${JSON.stringify(entry)}`,
      ''
    ].join('\n'))
  }
  return 0
}

/** `rqs token`: reads its own arguments and prints its own help (`rqs token --help`), so `run` is never called. */
export const tokenCliCommand: CliCommand = {
  name: 'token',
  summary: 'print a new access token and its entry for the --auth-tokens file',
  usage: 'rqs token --name NAME [--scopes read,write,metrics,admin] [--roles LIST] [--sub SUBJECT] [--json]',
  options: [],
  run: async () => 2,
  ownArguments: async (args) => tokenCommand(args)
}
