// Starts two (or more) builds' executables alternately, one start each per round, and prints for each the CPU
// (user + system) and minor page faults of the process at its first 200 from /healthz, min–median–max, and the
// paired differences against the first: an A/B of the start on a shared machine.
//   node bench/start-ab.mjs <rounds> <before>/bin.js <after>/bin.js   (the server pinned to CPU 0)
//   START_ARGS='--collections c20.json' node bench/start-ab.mjs …      (more options of `rqs serve`, split on spaces)
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { performance } from 'node:perf_hooks'
import process from 'node:process'
import { setTimeout as sleep } from 'node:timers/promises'
/* global fetch, console */

const [rounds, ...bins] = process.argv.slice(2)
const EXTRA_ARGS = (process.env.START_ARGS ?? '').split(' ').filter((a) => a !== '')
const TICK_MS = 10 // /proc/<pid>/stat counts clock ticks of 1/100 s
/** CPU ms, minor faults and system ms of a process so far. */
const usage = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return { cpu: (Number(fields[11]) + Number(fields[12])) * TICK_MS, faults: Number(fields[7]), sys: Number(fields[12]) * TICK_MS }
}
const freePort = () => new Promise((resolve) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)) }) })

async function start (bin) {
  const port = await freePort()
  const child = spawn('taskset', ['-c', '0', process.execPath, bin, 'serve', '--host', '127.0.0.1', '--port', String(port), '--log-format', 'json', '--log-level', 'warn', ...EXTRA_ARGS], { stdio: ['ignore', 'ignore', 'inherit'] })
  const started = performance.now()
  while (!await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false)) {
    if (performance.now() - started > 30_000) throw new Error(`${bin} was not ready within 30 s`)
    await sleep(2)
  }
  const used = usage(child.pid)
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))
  return used
}

const results = bins.map(() => [])
for (let i = 0; i < Number(rounds); i++) for (const [j, bin] of bins.entries()) results[j].push(await start(bin))
const spread = (values) => { const s = [...values].sort((a, b) => a - b); return `${s[0]}–${s[Math.floor((s.length - 1) / 2)]}–${s[s.length - 1]}` }
for (const [j, bin] of bins.entries()) {
  const r = results[j]
  console.log(`${bin}: CPU ms ${spread(r.map((u) => u.cpu))}, system ms ${spread(r.map((u) => u.sys))}, minor faults ${spread(r.map((u) => u.faults))}`)
  if (j > 0) console.log(`  paired CPU ms against ${bins[0]}: ${spread(r.map((u, i) => u.cpu - results[0][i].cpu))}`)
}
