import { now } from '../../core'
import type { TraceEventBody } from '../../trace'

export type ChunkBody = TraceEventBody & { type: 'model-chunk' }

/** How a chunk's text shows in the trace (the streamed tail masks it); the chunks of a joined event are shown together. */
export interface ShownText {
  mask(text: string): string
  /** The texts of consecutive chunks, each as `mask` gives it, joined. */
  maskJoined(texts: readonly string[]): string
}

/** A window of one frame: chunks closer together than this arrive faster than any panel shows them. */
const WINDOW_MS = 16
/** Text chunks a window records one by one; a model streaming live stays far below. */
const SINGLE_PER_WINDOW = 64
/** The most chunks one joined event stands for. */
const MOST_PER_EVENT = 1024

interface Joined {
  round: number
  t: number
  body: ChunkBody
  /** The chunks' texts as they streamed: masked together when the event is recorded, not one by one. */
  texts: string[]
}

/**
 * Records text chunks one event each, until more than SINGLE_PER_WINDOW arrive within one frame
 * (a replayed or in-memory stream): from then on the chunks of that frame are joined into one
 * `model-chunk` event whose `count` says how many it stands for, so a fast stream costs neither a
 * clock read nor an event per chunk. The text, the chunk count and the first chunk's time stay exact.
 * A joined event's text is masked when it is recorded: whatever else reads the streamed tail
 * flushes it first, so the chunks are masked in the order they streamed.
 */
export class ChunkJoiner {
  #windowStart = Number.NEGATIVE_INFINITY
  #windowChunks = 0
  #pending: Joined | undefined
  #timer: ReturnType<typeof setTimeout> | undefined

  readonly #record: (round: number, body: ChunkBody, t: number) => void
  readonly #shown: ShownText

  constructor(record: (round: number, body: ChunkBody, t: number) => void, shown: ShownText) {
    this.#record = record
    this.#shown = shown
  }

  /** A chunk with text only (no tool calls, finish reason or usage), not masked yet. */
  add(round: number, index: number, text: string): void {
    const pending = this.#pending
    if (pending && pending.round === round && pending.body.index + pending.body.count! === index) {
      pending.texts.push(text)
      if (++pending.body.count! >= MOST_PER_EVENT) this.flush()
      return
    }
    if (pending) this.flush()
    const t = now()
    if (t - this.#windowStart > WINDOW_MS) {
      this.#windowStart = t
      this.#windowChunks = 0
    }
    if (++this.#windowChunks <= SINGLE_PER_WINDOW) {
      return this.#record(round, { type: 'model-chunk', index, text: this.#shown.mask(text) }, t)
    }
    this.#pending = { round, t, body: { type: 'model-chunk', index, text: '', count: 1 }, texts: [text] }
    // Nothing else may come for a while (the model paused): the panel still sees the text within a frame.
    // One timer serves the joined events that follow each other; it may record one early, never late.
    if (this.#timer === undefined) this.#timer = setTimeout(this.#onTimer, WINDOW_MS)
  }

  /** Records the joined chunks now; the recorder calls it before any other event of the run. */
  readonly flush = (): void => {
    const pending = this.#pending
    if (!pending) return
    this.#pending = undefined
    pending.body.text = this.#shown.maskJoined(pending.texts)
    this.#record(pending.round, pending.body, pending.t)
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined
    this.flush()
  }
}
