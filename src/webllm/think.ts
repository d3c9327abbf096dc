const OPEN = '<think>'
const CLOSE = '</think>'

export interface Split {
  text: string
  reasoning: string
}

/**
 * Splits a reply that opens with a `<think>…</think>` block (Qwen3, DeepSeek-R1 distills) into
 * reasoning and answer text, as it streams: a tag cut across deltas is held back until it is whole.
 */
export class ThinkSplitter {
  #state: 'start' | 'thinking' | 'after' | 'answer' = 'start'
  #held = ''
  /** Whitespace at the end of the reasoning so far: sent only if more reasoning follows it. */
  #space = ''
  #thought = false

  push(delta: string): Split {
    let text = ''
    let reasoning = ''
    let rest = this.#held + delta
    this.#held = ''
    while (rest !== '') {
      if (this.#state === 'start') {
        const trimmed = rest.trimStart()
        if (trimmed.startsWith(OPEN)) {
          this.#state = 'thinking'
          rest = trimmed.slice(OPEN.length)
        } else if (OPEN.startsWith(trimmed)) {
          this.#held = rest
          rest = ''
        } else {
          this.#state = 'answer'
        }
      } else if (this.#state === 'thinking') {
        const end = rest.indexOf(CLOSE)
        if (end >= 0) {
          reasoning += this.#words(rest.slice(0, end))
          rest = rest.slice(end + CLOSE.length)
          this.#state = 'after'
        } else {
          const keep = partialTagLength(rest)
          reasoning += this.#words(rest.slice(0, rest.length - keep))
          this.#held = rest.slice(rest.length - keep)
          rest = ''
        }
      } else if (this.#state === 'after') {
        // The blank lines between the block and the answer belong to neither.
        rest = rest.trimStart()
        if (rest !== '') this.#state = 'answer'
      } else {
        text += rest
        rest = ''
      }
    }
    return { text, reasoning }
  }

  /** Reasoning without the blank lines that open and close the block. */
  #words(words: string): string {
    const body = words.trimEnd()
    const space = words.slice(body.length)
    if (body === '') {
      if (this.#thought) this.#space += space
      return ''
    }
    const out = this.#thought ? this.#space + body : body.trimStart()
    this.#thought = true
    this.#space = space
    return out
  }

  /** What is still held at the end: an unclosed block is reasoning, a lone `<thi` is text. */
  flush(): Split {
    const held = this.#held
    this.#held = ''
    if (this.#state === 'thinking') return { text: '', reasoning: this.#words(held) }
    return { text: this.#state === 'start' || this.#state === 'answer' ? held : '', reasoning: '' }
  }
}

/** How many characters at the end could be the start of `</think>`. */
function partialTagLength(text: string): number {
  for (let length = Math.min(CLOSE.length - 1, text.length); length > 0; length--) {
    if (CLOSE.startsWith(text.slice(text.length - length))) return length
  }
  return 0
}

/** A whole reply split at once (calls, not streams). */
export function splitThinking(content: string): Split {
  const splitter = new ThinkSplitter()
  const first = splitter.push(content)
  const last = splitter.flush()
  return { text: first.text + last.text, reasoning: first.reasoning + last.reasoning }
}
