import { REDACTED, type Redactor } from '../../trace'

/** How much earlier text a secret split across chunks is looked for in (what a key pattern spans). */
const TAIL = 64
/** The longest built-in secret marker (`Bearer`) less one: how far back a marker may begin. */
const MARKER_REACH = 5
/** The first characters of a secret that runs on across chunks kept to follow it (longer than any key's start). */
const OPEN_KEPT = 256
/** The recent text is cut back to its last OPEN_KEPT characters once it grows past this. */
const KEPT = 1024

/**
 * The text streamed so far in one response, to mask a chunk in which a secret ends, even one that
 * began in earlier chunks: the chunk is checked together with the 64 characters before it, or with
 * all of a secret that ran to the end of the text before it, however long (a 164-character key in
 * 4-character chunks is masked to its end). The built-in patterns all contain a marker (`sk-`,
 * `Bearer`…), so while no marker is in reach a chunk is checked on its own few characters, and the
 * tail is not rebuilt per chunk.
 */
export class StreamedTail {
  /** The latest text of the response (at least the tail), cut back now and then. */
  #recent = ''
  #streamed = 0
  /** The last few characters streamed, where a marker ending in the next chunk may begin. */
  #edge = ''
  /** Characters streamed when a marker last ended in a chunk. */
  #markerAt = Number.NEGATIVE_INFINITY
  /** Characters streamed before a secret that runs to the end of the text so far began; -1 when none does. */
  #openAt = -1
  /** That secret's first characters (at most OPEN_KEPT): the pattern still matches them and what goes on from them. */
  #openHead = ''

  readonly #ownPatterns: boolean

  constructor(private readonly redactor: Redactor) {
    this.#ownPatterns = redactor.hasOwnPatterns
  }

  reset(): void {
    this.#recent = ''
    this.#streamed = 0
    this.#edge = ''
    this.#markerAt = Number.NEGATIVE_INFINITY
    this.#openAt = -1
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
    const openAt = this.#openAt
    // No marker in the chunk, none in the tail before it, no secret running on, no pattern of the app's own: nothing to mask.
    if (!markerEnds && openAt < 0 && streamedBefore - this.#markerAt >= TAIL && !this.#ownPatterns) return text
    const reach = openAt < 0 ? TAIL : Math.max(TAIL, streamedBefore - openAt)
    // A secret longer than the text kept goes on from its first characters: what lies between is all secret.
    const head = reach > OPEN_KEPT ? this.#openHead : before.slice(-reach)
    const seen = head + text
    this.#openAt = -1
    if (this.redactor.text(seen) === seen) return text
    const open = this.redactor.openSecretAt(seen)
    // The secret the head begins goes on; or one that began in what was seen runs to its end.
    if (open === 0 && reach > OPEN_KEPT) this.#openAt = openAt
    else if (open >= 0) {
      this.#openAt = streamedBefore - head.length + open
      this.#openHead = seen.slice(open, open + OPEN_KEPT)
    }
    return REDACTED
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
      this.#openAt >= 0 ||
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
    this.#recent = before.length > KEPT ? before.slice(-OPEN_KEPT) + text : before + text
    this.#streamed += text.length
    // The recent text is a rope of chunks: reading its end would join it, so its last characters are kept apart.
    this.#edge = text.length >= MARKER_REACH ? text.slice(-MARKER_REACH) : (this.#edge + text).slice(-MARKER_REACH)
  }
}
