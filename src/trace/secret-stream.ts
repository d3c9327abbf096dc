import { registeredSecrets, scrubSecrets } from '../core'

/**
 * Scrubs text that arrives in pieces (a stream's deltas): a secret split across pieces is masked
 * whole. The end of a piece that could be the start of a secret is held back until the next
 * piece says whether it is one. Costs nothing while no secret is registered.
 */
export class SecretStreamScrubber {
  #held = ''

  /** The part of the text so far that is safe to show. */
  push(piece: string): string {
    if (registeredSecrets().length === 0 && this.#held === '') return piece
    const text = scrubSecrets(this.#held + piece)
    const hold = heldBackLength(text)
    this.#held = text.slice(text.length - hold)
    return text.slice(0, text.length - hold)
  }

  /** What was held back, at the end of the stream: no secret can complete any more. */
  flush(): string {
    const rest = this.#held
    this.#held = ''
    return rest
  }
}

/** The length of the longest end of `text` that is the start of a registered secret. */
function heldBackLength(text: string): number {
  let longest = 0
  for (const secret of registeredSecrets()) {
    // Only positions holding the secret's first character can start it; the first such match is the longest.
    const from = Math.max(0, text.length - secret.length + 1)
    for (
      let at = text.indexOf(secret[0]!, from);
      at !== -1 && text.length - at > longest;
      at = text.indexOf(secret[0]!, at + 1)
    ) {
      if (secret.startsWith(text.slice(at))) {
        longest = text.length - at
        break
      }
    }
  }
  return longest
}
