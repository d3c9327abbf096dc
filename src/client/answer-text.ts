// Chunks joined in blocks: a long answer is held as a few hundred strings, not one per chunk, which
// the collector would otherwise move again and again while the answer streams (1 MB in 4-character
// chunks is 262,144 strings).
const BLOCK = 1024

/** The text of one model call as it streams, read incrementally by a parser. */
export class AnswerText {
  #blocks: string[] = []
  #recent: string[] = []
  // How much `read` has handed on: whole blocks, then chunks of `recent`.
  #readBlocks = 0
  #readRecent = 0
  length = 0

  add(delta: string): void {
    const recent = this.#recent
    recent.push(delta)
    this.length += delta.length
    // A block is made of chunks read in full or not at all, so `read` can go on after it.
    if (recent.length >= BLOCK && (this.#readRecent === 0 || this.#readRecent === recent.length)) {
      this.#blocks.push(recent.join(''))
      if (this.#readRecent > 0) this.#readBlocks = this.#blocks.length
      this.#recent = []
      this.#readRecent = 0
    }
  }

  /** Whether `read` has handed on anything. */
  get started(): boolean {
    return this.#readBlocks > 0 || this.#readRecent > 0
  }

  /** Hands on, in order, the text that came since the last call. */
  read(take: (text: string) => void): void {
    while (this.#readBlocks < this.#blocks.length) take(this.#blocks[this.#readBlocks++]!)
    while (this.#readRecent < this.#recent.length) take(this.#recent[this.#readRecent++]!)
  }

  toString(): string {
    return this.#blocks.join('') + this.#recent.join('')
  }
}
