import { REDACTED, type Redactor } from '../../trace'

/** How much earlier text a secret split across chunks is looked for in (what a key pattern spans). */
const TAIL = 64
/** The longest built-in secret marker (`Bearer`) less one: how far back a marker may begin. */
const MARKER_REACH = 5
/** The recent text is cut back to the tail once it grows past this. */
const KEPT = 1024

/**
 * The text streamed so far in one response, to mask a chunk in which a secret ends, even one that
 * began in earlier chunks: the chunk is checked together with the 64 characters before it. The
 * built-in patterns all contain a marker (`sk-`, `Bearer`…), so while no marker is in reach a
 * chunk is checked on its own few characters, and the tail is not rebuilt per chunk.
 */
export class StreamedTail {
  /** The latest text of the response (at least the tail), cut back now and then. */
  #recent = ''
  #streamed = 0
  /** The last few characters streamed, where a marker ending in the next chunk may begin. */
  #edge = ''
  /** Characters streamed when a marker last ended in a chunk. */
  #markerAt = Number.NEGATIVE_INFINITY

  readonly #ownPatterns: boolean

  constructor(private readonly redactor: Redactor) {
    this.#ownPatterns = redactor.hasOwnPatterns
  }

  reset(): void {
    this.#recent = ''
    this.#streamed = 0
    this.#edge = ''
    this.#markerAt = Number.NEGATIVE_INFINITY
  }

  /**
   * The text so far may end in the start of a secret that no marker announces (a registered secret
   * the scrubber let go early): the chunks that follow are checked whole, as far as the tail reaches.
   */
  checkWhole(): void {
    this.#markerAt = this.#streamed
  }

  /** The chunk's text, or REDACTED when a secret ends in it. */
  mask(text: string): string {
    if (text === '') return text
    const before = this.#recent
    const streamedBefore = this.#streamed
    const edge = this.#edge
    this.#streamedAlso(text)
    const markerEnds =
      text.length <= MARKER_REACH * 4
        ? this.redactor.hasSecretMarker(edge + text)
        : this.redactor.hasSecretMarker(text) || this.redactor.hasSecretMarker(edge + text.slice(0, MARKER_REACH))
    if (markerEnds) this.#markerAt = this.#streamed
    // No marker in the chunk, none in the tail before it, no pattern of the app's own: nothing to mask.
    if (!markerEnds && streamedBefore - this.#markerAt >= TAIL && !this.#ownPatterns) return text
    const seen = before.slice(-TAIL) + text
    return this.redactor.text(seen) === seen ? text : REDACTED
  }

  /**
   * The texts of consecutive chunks, each as `mask` gives it, joined. While no marker is in reach
   * of any of them (and the app has no patterns of its own) none can be masked: they are checked
   * together, once, instead of one by one.
   */
  maskJoined(texts: readonly string[]): string {
    const joined = texts.join('')
    if (
      this.#ownPatterns ||
      this.#streamed - this.#markerAt < TAIL ||
      this.redactor.hasSecretMarker(this.#edge + joined)
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
    this.#edge = text.length >= MARKER_REACH ? text.slice(-MARKER_REACH) : (this.#edge + text).slice(-MARKER_REACH)
  }
}
