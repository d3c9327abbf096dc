import { REDACTED, type Redactor } from './redact'
import { SecretStreamScrubber } from './secret-stream'

/** How much earlier text a secret split across chunks is looked for in (what a key pattern spans). */
const TAIL = 64
/** The longest built-in secret marker (`Bearer`) less one: how far back a marker may begin. */
const MARKER_REACH = 5
/** The first characters of a secret that runs on across chunks kept to follow it (longer than any key's start). */
const OPEN_KEPT = 256
/** The recent text is cut back to the tail once it grows past this. */
const KEPT = 1024

/**
 * One stream of text of a response (its text, or its reasoning) as the trace may show it. A
 * registered secret is held back until it is whole and scrubbed (`scrub`). A chunk in which a
 * pattern's secret ends is masked (`mask`), even one that began in earlier chunks: the chunk is
 * checked together with the 64 characters before it, or, when a secret ran to the end of the text
 * before it, with that secret's first characters, which the pattern still matches with whatever
 * carries it on (a 164-character key in 4-character chunks is masked to its end). The built-in
 * patterns all contain a marker (`sk-`, `Bearer`…), so while no marker is in reach a chunk is
 * checked on its own few characters, and the tail is not rebuilt per chunk.
 */
export class StreamedTail {
  /** Holds back the end of a chunk that may be the start of a registered secret. */
  readonly #scrubber = new SecretStreamScrubber()
  /** The latest text of the response (at least the tail), cut back now and then. */
  #recent = ''
  #streamed = 0
  /** The last few characters streamed, where a marker ending in the next chunk may begin. */
  #edge = ''
  /** Characters streamed when a marker last ended in a chunk. */
  #markerAt = Number.NEGATIVE_INFINITY
  /** The first characters (at most OPEN_KEPT) of a key that runs to the end of the text so far; '' when none does. */
  #open = ''

  readonly #redactor: Redactor

  constructor(redactor: Redactor) {
    this.#redactor = redactor
  }

  reset(): void {
    this.#scrubber.flush()
    this.#recent = ''
    this.#streamed = 0
    this.#edge = ''
    this.#markerAt = Number.NEGATIVE_INFINITY
    this.#open = ''
  }

  /**
   * A chunk with its registered secrets scrubbed and the end that may begin one held back: what
   * `mask` shows next. The tail reads only this, in which no registered secret is left whole or
   * split, so only the redactor's patterns can be found in it.
   */
  scrub(piece: string): string {
    return this.#scrubber.push(piece)
  }

  /**
   * A scrubbed chunk's text, or REDACTED when a secret ends in it. `ended`: the stream ended (a
   * finish reason), and what the scrubber held back comes with this chunk.
   */
  mask(scrubbed: string, ended?: boolean): string {
    const heldBack = ended ? this.#scrubber.flush() : ''
    const text = scrubbed + heldBack
    if (text === '') return text
    const before = this.#recent
    const streamedBefore = this.#streamed
    const edge = this.#edge
    this.#streamedAlso(text)
    const markerEnds = this.#redactor.hasSecretMarker(edge + text)
    // What was held back may be the start of a secret that no marker announces, and a stream that
    // goes on after a finish reason could complete it: the chunks that follow are checked whole.
    if (markerEnds || heldBack) this.#markerAt = this.#streamed
    // No marker in the chunk, none in the tail before it, no key running on, no pattern of the app's own: nothing to mask.
    if (!markerEnds && !this.#open && streamedBefore - this.#markerAt >= TAIL && !this.#redactor.hasOwnPatterns)
      return text
    // A key that ran to the end of the text before is looked at from its start, however long ago that was.
    const seen = (this.#open || before.slice(-TAIL)) + text
    const open = this.#redactor.openSecretAt(seen)
    this.#open = open < 0 ? '' : seen.slice(open, open + OPEN_KEPT)
    // A key still running at the chunk's end is masked before its pattern's length is reached: none of its body shows.
    return open < 0 && this.#redactor.text(seen) === seen ? text : REDACTED
  }

  /**
   * The texts of consecutive chunks, each as `mask` gives it, joined. While no marker is in reach
   * of any of them (and the app has no patterns of its own) none can be masked: they are checked
   * together, once, instead of one by one.
   */
  maskJoined(texts: readonly string[]): string {
    const joined = texts.join('')
    if (
      this.#redactor.hasOwnPatterns ||
      this.#open ||
      this.#streamed - this.#markerAt < TAIL ||
      this.#redactor.hasSecretMarker(this.#edge + joined)
    ) {
      let shown = ''
      for (const text of texts) shown += this.mask(text)
      return shown
    }
    this.#streamedAlso(joined)
    return joined
  }

  #streamedAlso(text: string): void {
    const before = this.#recent
    this.#recent = before.length > KEPT ? before.slice(-TAIL) + text : before + text
    this.#streamed += text.length
    // The recent text is a rope of chunks: reading its end would join it, so its last characters are kept apart.
    this.#edge = (this.#edge + text).slice(-MARKER_REACH)
  }
}
