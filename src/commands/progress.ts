import cliProgress from 'cli-progress'

/** Where progress goes: stderr, a terminal or not. */
export interface ProgressStream extends NodeJS.WritableStream {
  isTTY?: boolean
  columns?: number
}

export interface ProgressOptions {
  stream: ProgressStream
  /** "rqs import" */
  command: string
  /** "imported", "exported" */
  verb: string
  /** "students" */
  noun: string
  /** The amount of work for the ETA (bytes of the file, or records), when known. */
  total?: number
}

/**
 * Progress of a bulk command. On a terminal: a bar redrawn in place (records
 * done, rate, ETA when the total is known). Otherwise (a log, a pipe) nothing
 * until the end. Either way one summary line when done.
 */
export class Progress {
  readonly #options: ProgressOptions
  readonly #started = performance.now()
  readonly #bar: cliProgress.SingleBar | undefined
  #records = 0
  #committing = false

  constructor (options: ProgressOptions) {
    this.#options = options
    if (options.stream.isTTY !== true) return
    const known = options.total !== undefined && options.total > 0
    this.#bar = new cliProgress.SingleBar({
      stream: options.stream,
      format: known
        ? `${options.command} {bar} {percentage}% | {records} ${options.noun} | {rate} records/s | ETA {eta_formatted}`
        : `${options.command} {records} ${options.noun} | {rate} records/s`,
      hideCursor: false,
      clearOnComplete: true,
      fps: 10,
      etaBuffer: 50
    }, cliProgress.Presets.shades_classic)
    this.#bar.start(known ? options.total as number : 0, 0, { records: 0, rate: 0 })
  }

  /** `records` done so far; `work` is the progress toward the total (bytes or records). */
  update (records: number, work: number = records): void {
    this.#records = records
    if (!this.#committing) this.#bar?.update(work, { records, rate: this.#rate() })
  }

  /**
   * Everything is read and the store applies it: the bar (full) gives way to
   * a line saying so, rather than falling back to records over bytes.
   */
  committing (): void {
    if (this.#committing) return
    this.#committing = true
    if (this.#bar === undefined) return
    this.#bar.stop()
    this.#options.stream.write(`${this.#options.command}: committing ${this.#records} ${this.#options.noun}…\n`)
  }

  /**
   * Clears the bar and writes the summary, e.g. "rqs import: 100000 students imported in 1.4 s (71429 records/s)";
   * the rate only after a second or more. `detail` follows the verb ("imported (7 created, 3 replaced)").
   */
  done (extra = '', detail = ''): void {
    this.#bar?.stop()
    const seconds = (performance.now() - this.#started) / 1000
    const { command, verb, noun } = this.#options
    // A rate over less than a second says nothing (one record in 0.07 s is not "14 records/s").
    const rate = seconds >= 1 ? ` (${this.#rate()} records/s)` : ''
    this.#options.stream.write(`${command}: ${this.#records} ${noun} ${verb}${detail} in ${seconds.toFixed(1)} s${rate}${extra}\n`)
  }

  /** Stops the bar without a summary (the command failed and says why itself). */
  abandon (): void {
    this.#bar?.stop()
  }

  #rate (): number {
    const seconds = (performance.now() - this.#started) / 1000
    return seconds === 0 ? 0 : Math.round(this.#records / seconds)
  }
}
