import type { TraceEventBody } from '../trace'

export type ChunkBody = TraceEventBody & { type: 'model-chunk' }

/** A window of one frame: chunks closer together than this arrive faster than any panel shows them. */
const WINDOW_MS = 16
/** Text chunks a window records one by one; a model streaming live stays far below. */
const SINGLE_PER_WINDOW = 64
/** The most chunks one joined event stands for. */
const MOST_PER_EVENT = 1024

/**
 * Records text chunks one event each, until more than SINGLE_PER_WINDOW arrive within one frame
 * (a replayed or in-memory stream): from then on the chunks of that frame are joined into one
 * `model-chunk` event whose `count` says how many it stands for, so a fast stream costs neither a
 * clock read nor an event per chunk. The text, the chunk count and the first chunk's time stay exact.
 */
export class ChunkJoiner {
  #windowStart = Number.NEGATIVE_INFINITY
  #windowChunks = 0
  #pending: { round: number; t: number; body: ChunkBody } | undefined
  #timer: ReturnType<typeof setTimeout> | undefined

  constructor(private readonly record: (round: number, body: ChunkBody, t: number) => void) {}

  get pending(): boolean {
    return this.#pending !== undefined
  }

  /** A chunk with text only (no tool calls, finish reason or usage). */
  add(round: number, index: number, text: string): void {
    const pending = this.#pending
    if (pending && pending.round === round && pending.body.index + pending.body.count! === index) {
      pending.body.text += text
      if (++pending.body.count! >= MOST_PER_EVENT) this.flush()
      return
    }
    if (pending) this.flush()
    const t = performance.now()
    if (t - this.#windowStart > WINDOW_MS) {
      this.#windowStart = t
      this.#windowChunks = 0
    }
    if (++this.#windowChunks <= SINGLE_PER_WINDOW) return this.record(round, { type: 'model-chunk', index, text }, t)
    this.#pending = { round, t, body: { type: 'model-chunk', index, text, count: 1 } }
    // Nothing else may come for a while (the model paused): the panel still sees the text within a frame.
    this.#timer = setTimeout(this.flush, WINDOW_MS)
  }

  /** Records the joined chunks now; the recorder calls it before any other event of the run. */
  readonly flush = (): void => {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const pending = this.#pending
    if (!pending) return
    this.#pending = undefined
    this.record(pending.round, pending.body, pending.t)
  }
}
