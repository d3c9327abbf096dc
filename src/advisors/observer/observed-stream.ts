import {
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
): AsyncIterableIterator<ChatClientResponse> {
  return streamStage(new ObservedStream(open, watch))
}

class ObservedStream implements StreamLayer<ChatClientResponse> {
  readonly passesOn = 'unchanged'
  readonly aggregates = true
  #started = 0
  #firstToken: number | undefined
  #index = 0

  constructor(
    private readonly source: () => AsyncIterable<ChatClientResponse>,
    private readonly watch: StreamObservation,
  ) {}

  open(): AsyncIterable<ChatClientResponse> {
    this.#started = now()
    this.watch.begin(this.#started)
    return this.source()
  }

  chunk(chunk: ChatClientResponse): ChatClientResponse {
    const chatResponse = chunk.chatResponse
    if (chatResponse) {
      if (this.#firstToken === undefined && hasContent(chatResponse)) this.#firstToken = now()
      this.watch.chunk(this.#index++, chatResponse)
    }
    return chunk
  }

  end(aggregate: ChatResponse | null): void {
    this.#finish('ok', aggregate)
  }

  fail(error: unknown, aggregate: ChatResponse | null): never {
    this.#finish(isAbortError(error) ? 'aborted' : 'error', aggregate, error)
    throw error
  }

  stop(aggregate: ChatResponse | null): void {
    this.#finish('aborted', aggregate, new DOMException('The reader stopped the stream.', 'AbortError'))
  }

  #finish(status: RunStatus, aggregate: ChatResponse | null, error?: unknown): void {
    const at = now()
    const timing: ResponseTiming = { durationMs: at - this.#started, chunks: this.#index, at }
    if (this.#firstToken !== undefined) timing.timeToFirstTokenMs = this.#firstToken - this.#started
    this.watch.finish(status, aggregate, timing, error)
  }
}

function hasContent(chunk: ChatResponse): boolean {
  const output = chunk.results[0]?.output
  // A reasoning token is a generated token: a thinking model's first token is its first thought.
  return !!output && (output.text !== '' || !!output.reasoning || output.toolCalls.length > 0)
}
