import type { ChatResponse } from '../../core'
import { ChunkJoiner, type ChunkBody } from './chunk-joiner'
import type { RunRecorder } from './run-recorder'
import { StreamedTail } from '../../trace/streamed-tail'
import type { Redactor } from '../../trace'

/**
 * The `model-chunk` events of a run's streamed responses: each chunk's text and reasoning masked
 * (also a secret split across chunks), fast streams joined.
 */
export class ChunkRecorder {
  /** The text streamed so far in this response. */
  readonly #text: StreamedTail
  /** The reasoning streamed so far, masked as the text is, on its own. */
  readonly #reasoning: StreamedTail
  #lastIndex = -1
  readonly #joiner: ChunkJoiner

  readonly #run: RunRecorder

  readonly #redactor: Redactor

  constructor(run: RunRecorder, redactor: Redactor) {
    this.#run = run
    this.#redactor = redactor
    this.#text = new StreamedTail(redactor)
    this.#reasoning = new StreamedTail(redactor)
    this.#joiner = new ChunkJoiner((round, body, t) => run.emit(round, body, undefined, t), this.#text)
  }

  /** Joined chunks wait for the next event of the run, which records them first (when there are any). */
  flush(): void {
    this.#joiner.flush()
  }

  chunk(round: number, index: number, chunk: ChatResponse): void {
    const generation = chunk.results[0]
    if (index === 0) {
      // Joined text of the response before is masked with what that response streamed.
      this.clear()
    }
    this.#lastIndex = index
    const text = this.#text.scrub(generation?.output.text ?? '')
    const toolCalls = generation?.output.toolCalls
    const finishReason = generation?.metadata.finishReason
    const usage = chunk.metadata.usage
    const reasoning = generation?.output.reasoning
    // The joiner masks the text when it records it; the scrubber's part is done per chunk, here.
    if (!toolCalls?.length && !finishReason && !usage && !reasoning) return this.#joiner.add(round, index, text)
    const body = this.#body(index, text, reasoning ?? '', !!finishReason)
    if (toolCalls?.length) body.toolCalls = toolCalls.map((call) => this.#run.tracedToolCall(call))
    if (finishReason) body.finishReason = this.#redactor.text(finishReason)
    if (usage) body.usage = usage
    this.#run.emit(round, body)
  }

  /** A stream that ended without a finish reason may still hold the end of its text or reasoning back. */
  endOfResponse(round: number): void {
    if (this.#lastIndex < 0) return
    const body = this.#body(this.#lastIndex + 1, '', '', true)
    if (body.text || body.reasoning) this.#run.emit(round, body)
    this.#lastIndex = -1
  }

  /** A chunk's text and reasoning as the trace shows them; `ended`: with what each held back. */
  #body(index: number, text: string, reasoning: string, ended: boolean): ChunkBody {
    // The chunks joined so far are masked before this one: the tail reads the text in the order it streamed.
    this.#joiner.flush()
    const body: ChunkBody = { type: 'model-chunk', index, text: this.#text.mask(text, ended) }
    const thought = this.#reasoning.mask(this.#reasoning.scrub(reasoning), ended)
    if (thought) body.reasoning = thought
    return body
  }

  /** The run (or the response) ended: nothing of its text is kept. */
  clear(): void {
    this.#joiner.flush()
    this.#text.reset()
    this.#reasoning.reset()
  }
}
