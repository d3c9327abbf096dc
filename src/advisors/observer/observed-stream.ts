import {
  readerStopped,
  ChatResponseAggregator,
  isAbortError,
  now,
  streamStage,
  type ChatClientResponse,
  type ChatResponse,
  type StreamLayer,
} from '../../core'
import type { RunStatus } from '../../trace'
import type { ResponseTiming } from './run-recorder'

export interface StreamObservation {
  /** `started`: the clock when the stream was opened. */
  begin(started: number): void
  chunk(index: number, chunk: ChatResponse): void
  finish(status: RunStatus, response: ChatResponse | null, timing: ResponseTiming, error?: unknown): void
}

/**
 * Passes a stream through unchanged while it watches it: every chunk, the time to the first
 * token, the aggregate at the end, and how it ended (done, failed, or stopped by the reader).
 */
export function observedStream(
  open: () => AsyncIterable<ChatClientResponse>,
  watch: StreamObservation,
  roundAnswer?: ChatResponseAggregator,
): AsyncIterableIterator<ChatClientResponse> {
  return streamStage(new ObservedStream(open, watch, roundAnswer))
}

class ObservedStream implements StreamLayer<ChatClientResponse> {
  /** The answer so far: the tool loop's fold of the round (inside the loop), else this layer's own. */
  readonly #answer: ChatResponseAggregator
  readonly #folds: boolean
  #started = 0
  #firstToken: number | undefined
  #index = 0

  readonly #source: () => AsyncIterable<ChatClientResponse>
  readonly #watch: StreamObservation

  constructor(
    source: () => AsyncIterable<ChatClientResponse>,
    watch: StreamObservation,
    roundAnswer: ChatResponseAggregator | undefined,
  ) {
    this.#source = source
    this.#watch = watch
    this.#answer = roundAnswer ?? new ChatResponseAggregator()
    this.#folds = roundAnswer === undefined
  }

  open(): AsyncIterable<ChatClientResponse> {
    this.#started = now()
    this.#watch.begin(this.#started)
    return this.#source()
  }

  chunk(chunk: ChatClientResponse): ChatClientResponse {
    const chatResponse = chunk.chatResponse
    if (chatResponse) {
      if (this.#folds) this.#answer.add(chatResponse)
      if (this.#firstToken === undefined && hasContent(chatResponse)) this.#firstToken = now()
      this.#watch.chunk(this.#index++, chatResponse)
    }
    return chunk
  }

  end(): void {
    this.#finish('ok')
  }

  fail(error: unknown): never {
    this.#finish(isAbortError(error) ? 'aborted' : 'error', error)
    throw error
  }

  stop(): void {
    this.#finish('aborted', readerStopped())
  }

  #finish(status: RunStatus, error?: unknown): void {
    const aggregate = this.#answer.chunkCount > 0 ? this.#answer.result() : null
    const at = now()
    const timing: ResponseTiming = { durationMs: at - this.#started, chunks: this.#index, at }
    if (this.#firstToken !== undefined) timing.timeToFirstTokenMs = this.#firstToken - this.#started
    this.#watch.finish(status, aggregate, timing, error)
  }
}

function hasContent(chunk: ChatResponse): boolean {
  const output = chunk.results[0]?.output
  // A reasoning token is a generated token: a thinking model's first token is its first thought.
  return !!output && (output.text !== '' || !!output.reasoning || output.toolCalls.length > 0)
}
