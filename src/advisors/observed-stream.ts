import {
  isAbortError,
  type ChatClientResponse,
  type ChatResponse,
  ChatResponseAggregator,
  READ_THROUGH,
  Reactions,
  readStep,
  type OnError,
  type OnStep,
  type ReadThrough,
  AGGREGATOR,
  type Aggregating,
} from '../core'
import type { RunStatus } from '../trace'
import type { ResponseTiming } from './run-recorder'

export interface StreamObservation {
  /** `started`: `performance.now()` when the stream was opened. */
  begin(started: number): void
  chunk(index: number, chunk: ChatResponse): void
  finish(status: RunStatus, response: ChatResponse | null, timing: ResponseTiming, error?: unknown): void
}

/**
 * Passes a stream through unchanged while it watches it: every chunk, the time to the first
 * token, the aggregate at the end, and how it ended (done, failed, or stopped by the reader).
 * A hand-written iterator that its reader reads through: a chunk costs no promise of its own. It
 * passes every chunk on as it is, so its reader may take its aggregate (the tool loop does).
 */
export class ObservedStream
  implements AsyncIterableIterator<ChatClientResponse>, ReadThrough<ChatClientResponse>, Aggregating
{
  #source: AsyncIterator<ChatClientResponse> | undefined
  readonly #aggregator = new ChatResponseAggregator()
  #started = 0
  #firstToken: number | undefined
  #index = 0
  #finished = false
  #reactions: Reactions<ChatClientResponse, ChatClientResponse> | undefined

  constructor(
    private readonly open: () => AsyncIterable<ChatClientResponse>,
    private readonly watch: StreamObservation,
  ) {}

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<ChatClientResponse>> {
    if (this.#finished) return Promise.resolve({ done: true, value: undefined })
    return readStep(this.#opened(), this.#onStep, this.#onError)
  }

  [READ_THROUGH]<U>(onStep: OnStep<ChatClientResponse, U>, onError: OnError<U>): Promise<U> {
    if (this.#finished) return Promise.resolve({ done: true as const, value: undefined }).then(onStep, onError)
    const reactions = (this.#reactions ??= new Reactions(this.#onStep, this.#onError)).followedBy(
      onStep as OnStep<ChatClientResponse, unknown>,
      onError,
    )
    return readStep(this.#opened(), reactions.step, reactions.error) as Promise<U>
  }

  [AGGREGATOR](): ChatResponseAggregator {
    return this.#aggregator
  }

  /** The source, opened by the first read. */
  #opened(): AsyncIterator<ChatClientResponse> {
    if (!this.#source) {
      this.#started = performance.now()
      try {
        this.watch.begin(this.#started)
        this.#source = this.open()[Symbol.asyncIterator]()
      } catch (error) {
        this.#onError(error)
      }
    }
    return this.#source!
  }

  return(): Promise<IteratorResult<ChatClientResponse>> {
    if (!this.#finished) {
      this.#finish('aborted', new DOMException('The reader stopped the stream.', 'AbortError'))
      this.#source?.return?.().catch(() => {})
    }
    return Promise.resolve({ done: true, value: undefined })
  }

  readonly #onStep = (step: IteratorResult<ChatClientResponse>): IteratorResult<ChatClientResponse> => {
    if (step.done) {
      this.#finish('ok')
      return step
    }
    const chatResponse = step.value.chatResponse
    if (chatResponse) {
      if (this.#firstToken === undefined && hasContent(chatResponse)) this.#firstToken = performance.now()
      this.watch.chunk(this.#index++, chatResponse)
      this.#aggregator.add(chatResponse)
    }
    return step
  }

  readonly #onError = (error: unknown): never => {
    this.#finish(isAbortError(error) ? 'aborted' : 'error', error)
    throw error
  }

  #finish(status: RunStatus, error?: unknown): void {
    if (this.#finished) return
    this.#finished = true
    const at = performance.now()
    const timing: ResponseTiming = { durationMs: at - this.#started, chunks: this.#index, at }
    if (this.#firstToken !== undefined) timing.timeToFirstTokenMs = this.#firstToken - this.#started
    const response = this.#aggregator.chunkCount > 0 ? this.#aggregator.result() : null
    this.watch.finish(status, response, timing, error)
  }
}

function hasContent(chunk: ChatResponse): boolean {
  const output = chunk.results[0]?.output
  // A reasoning token is a generated token: a thinking model's first token is its first thought.
  return !!output && (output.text !== '' || !!output.reasoning || output.toolCalls.length > 0)
}
