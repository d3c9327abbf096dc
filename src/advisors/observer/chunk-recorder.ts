import { SecretStreamScrubber, type ChatResponse } from '../../core'
import type { Redactor } from '../../trace'
import { ChunkJoiner, type ChunkBody } from './chunk-joiner'
import type { RunRecorder } from './run-recorder'
import { StreamedTail } from './streamed-tail'

/**
 * The `model-chunk` events of a run's streamed responses: each chunk's text and reasoning masked
 * (also a secret split across chunks), fast streams joined.
 */
export class ChunkRecorder {
  /**
   * The text streamed so far in this response, to catch a pattern split across chunks. It reads the
   * scrubber's output, in which no registered secret is left whole or split (the scrubber holds a
   * possible start back), so only the redactor's patterns can be found in it.
   */
  readonly #streamedTail: StreamedTail
  /** Holds back the end of a chunk that may be the start of a registered secret. */
  #scrubber = new SecretStreamScrubber()
  /** The reasoning deltas' own scrubber and tail, made with the first one: most responses have none. */
  #reasoning: { scrubber: SecretStreamScrubber; tail: StreamedTail } | undefined
  #lastIndex = -1
  readonly #joiner: ChunkJoiner

  constructor(
    private readonly run: RunRecorder,
    private readonly redactor: Redactor,
  ) {
    this.#streamedTail = new StreamedTail(redactor)
    this.#joiner = new ChunkJoiner((round, body, t) => run.emit(round, body, undefined, t), this.#streamedTail)
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
    if (index === 0) {
      // Joined text of the response before is masked with what that response streamed.
      this.#joiner.flush()
      this.#streamedTail.reset()
      this.#scrubber = new SecretStreamScrubber()
      this.#reasoning = undefined
    }
    this.#lastIndex = index
    const shown = this.#scrubber.push(generation?.output.text ?? '')
    const toolCalls = generation?.output.toolCalls
    const finishReason = generation?.metadata.finishReason
    const usage = chunk.metadata.usage
    const reasoning = generation?.output.reasoning
    // The joiner masks the text when it records it; the scrubber's part is done per chunk, here.
    if (!toolCalls?.length && !finishReason && !usage && !reasoning) return this.#joiner.add(round, index, shown)
    // The chunks joined so far are masked before this one: the tail reads the text in the order it streamed.
    this.#joiner.flush()
    const heldBack = finishReason ? this.#scrubber.flush() : ''
    const text = this.#streamedTail.mask(shown + heldBack)
    // Text after a finish reason could complete what was held back: the tail checks it whole.
    if (heldBack) this.#streamedTail.checkWhole()
    const body: ChunkBody = { type: 'model-chunk', index, text }
    const thought = reasoning || this.#reasoning ? this.#reasoningShown(reasoning ?? '', !!finishReason) : ''
    if (thought) body.reasoning = thought
    if (toolCalls?.length) body.toolCalls = toolCalls.map((call) => this.run.tracedToolCall(call))
    if (finishReason) body.finishReason = this.redactor.text(finishReason)
    if (usage) body.usage = usage
    this.run.emit(round, body)
  }

  /** A reasoning delta as the trace shows it: held back and masked as text is, in a stream of its own. */
  #reasoningShown(delta: string, ended: boolean): string {
    const { scrubber, tail } = (this.#reasoning ??= {
      scrubber: new SecretStreamScrubber(),
      tail: new StreamedTail(this.redactor),
    })
    const heldBack = ended ? scrubber.flush() : ''
    const shown = tail.mask(scrubber.push(delta) + heldBack)
    // Reasoning after a finish reason could complete what was held back: the tail checks it whole.
    if (heldBack) tail.checkWhole()
    return shown
  }

  /** A stream that ended without a finish reason may still hold the end of its text or reasoning back. */
  endOfResponse(round: number): void {
    const heldBack = this.#lastIndex >= 0 ? this.#scrubber.flush() : ''
    const thought = this.#lastIndex >= 0 && this.#reasoning ? this.#reasoningShown('', true) : ''
    if (heldBack || thought) {
      this.#joiner.flush()
      const body: ChunkBody = {
        type: 'model-chunk',
        index: this.#lastIndex + 1,
        text: this.#streamedTail.mask(heldBack),
      }
      if (thought) body.reasoning = thought
      this.run.emit(round, body)
    }
    this.#lastIndex = -1
  }

  /** The run ended: nothing of its text is kept. */
  clear(): void {
    this.#joiner.flush()
    this.#streamedTail.reset()
  }
}
