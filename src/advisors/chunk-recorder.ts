import { SecretStreamScrubber, type ChatResponse } from '../core'
import { REDACTED } from '../trace'
import { ChunkJoiner, type ChunkBody } from './chunk-joiner'
import type { RunRecorder } from './run-recorder'

/**
 * The `model-chunk` events of a run's streamed responses: each chunk's text masked (also a secret
 * split across chunks), fast streams joined. Loaded with the first stream, like the stream watcher.
 */
export class ChunkRecorder {
  /** The end of the text streamed so far in this response, to catch a pattern split across chunks. */
  #streamedTail = ''
  /** Holds back the end of a chunk that may be the start of a registered secret. */
  #scrubber = new SecretStreamScrubber()
  #lastIndex = -1
  readonly #joiner: ChunkJoiner

  constructor(private readonly run: RunRecorder) {
    this.#joiner = new ChunkJoiner((round, body, t) => run.emit(round, body, undefined, t))
  }

  /** Joined chunks wait for the next event of the run, which records them first. */
  get pending(): boolean {
    return this.#joiner.pending
  }

  flush(): void {
    this.#joiner.flush()
  }

  chunk(round: number, index: number, chunk: ChatResponse): void {
    const generation = chunk.results[0]
    const toolCalls = generation?.output.toolCalls
    const usage = chunk.metadata.usage
    const finishReason = generation?.metadata.finishReason
    if (index === 0) {
      this.#streamedTail = ''
      this.#scrubber = new SecretStreamScrubber()
    }
    this.#lastIndex = index
    let raw = this.#scrubber.push(generation?.output.text ?? '')
    if (finishReason) raw += this.#scrubber.flush()
    const text = this.#text(raw)
    const reasoning = generation?.output.reasoning
    if (!toolCalls?.length && !finishReason && !usage && !reasoning) return this.#joiner.add(round, index, text)
    const body: ChunkBody = { type: 'model-chunk', index, text }
    if (reasoning) body.reasoning = this.run.redact(reasoning)
    if (toolCalls?.length) body.toolCalls = toolCalls.map((call) => this.run.tracedToolCall(call))
    if (finishReason) body.finishReason = finishReason
    if (usage) body.usage = usage
    this.run.emit(round, body)
  }

  /** A stream that ended without a finish reason may still hold the end of its text back. */
  endOfResponse(round: number): void {
    const heldBack = this.#lastIndex >= 0 ? this.#scrubber.flush() : ''
    if (heldBack) this.run.emit(round, { type: 'model-chunk', index: this.#lastIndex + 1, text: this.#text(heldBack) })
    this.#lastIndex = -1
  }

  /** The run ended: nothing of its text is kept. */
  clear(): void {
    this.#streamedTail = ''
  }

  /** A chunk's text, masked whole when a secret ends in it, even one that began in earlier chunks. */
  #text(text: string): string {
    if (text === '') return text
    const seen = this.#streamedTail + text
    this.#streamedTail = seen.slice(-64)
    return this.run.redact(seen) === seen ? text : REDACTED
  }
}
