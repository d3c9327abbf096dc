import type { Message } from '../core'

/**
 * Where a window of `keep` messages (system messages aside) starts, found by reading a conversation
 * from its newest message back: the oldest `keep` messages go, and the cut moves on to the next
 * user message, so a window never starts mid-turn; a single turn longer than the window is kept
 * whole, from its user message. The one rule of `windowOf` and of repositories that read or trim
 * only the window.
 */
export class WindowCut {
  #taken = 0
  #lastUser = 0
  #kept: number | undefined
  #over = false

  constructor(readonly keep: number) {}

  /** Takes the next older message; false once the window's start is found (read no further). */
  older(role: Message['role']): boolean {
    if (this.#kept !== undefined) return false
    if (this.#taken < this.keep) {
      this.#taken++
      if (role === 'user') this.#lastUser = this.#taken
      return true
    }
    this.#over = true
    if (this.#lastUser > 0) {
      this.#kept = this.#lastUser
      return false
    }
    this.#taken++
    if (role === 'user') this.#kept = this.#taken
    return this.#kept === undefined
  }

  /** How many of the newest messages the window keeps (all taken, when `older` never said false). */
  get kept(): number {
    return this.#kept ?? this.#taken
  }

  /** Whether the conversation has more than `keep` messages: then its system messages go first. */
  get over(): boolean {
    return this.#over
  }
}
