import {
  type ChatClientRequest,
  type ChatClientResponse,
  isAbortError,
  errorInfo,
  assistantMessage,
  type Message,
  addUsage,
  hasToolCalls,
  type ChatResponse,
  type Usage,
  ChatResponseAggregator,
  aggregatorOf,
  READ_THROUGH,
  Reactions,
  readStep,
  type OnError,
  type OnStep,
  type ReadThrough,
} from '../core'
import type { ToolExecutionResult } from '../tools'
import type { ToolLoop } from './tool-loop'

type MaybePromise<T> = T | Promise<T>

/** How a round ends: the loop goes on with the tool results, or stops with a final response. */
export type RoundEnd =
  /** `replaced`: the answer is not the model's (returnDirect output or a limit message). */
  { done: true; replaced: boolean; response: ChatClientResponse } | { done: false; result: ToolExecutionResult }

/** What the stream needs from the advisor: its hooks and its decisions, bound to one chain. */
export interface ToolLoopSteps {
  start(): Promise<ToolLoop>
  beforeRound(request: ChatClientRequest): MaybePromise<ChatClientRequest>
  openRound(request: ChatClientRequest): AsyncIterable<ChatClientResponse>
  afterRound(response: ChatClientResponse): MaybePromise<ChatClientResponse>
  endOfRound(loop: ToolLoop, request: ChatClientRequest, response: ChatClientResponse): MaybePromise<RoundEnd>
  nextInstructions(
    request: ChatClientRequest,
    response: ChatClientResponse,
    result: ToolExecutionResult,
  ): MaybePromise<Message[]>
}

interface Round {
  request: ChatClientRequest
  chunks: AsyncIterator<ChatClientResponse>
  /** Set by the first chunk: the round stream's own when it keeps one (an observer in the loop), else the loop's. */
  aggregator: ChatResponseAggregator | undefined
  /** Whether the loop adds the chunks to the aggregator itself. */
  aggregates: boolean
  context: Record<string, unknown>
  usageShown: boolean
}

/**
 * The streaming tool loop as a hand-written async iterator that its reader reads through: a text
 * chunk costs no promise of its own, not the several ticks of an async generator. Text streams
 * live; tool-call chunks are held back, aggregated, and run between rounds.
 */
export class ToolLoopStream implements AsyncIterableIterator<ChatClientResponse>, ReadThrough<ChatClientResponse> {
  #loop: ToolLoop | undefined
  #round: Round | undefined
  #pending: ChatClientResponse[] = []
  #finished = false
  #reactions: Reactions<ChatClientResponse, ChatClientResponse> | undefined

  constructor(private readonly steps: ToolLoopSteps) {}

  [Symbol.asyncIterator](): this {
    return this
  }

  next(): Promise<IteratorResult<ChatClientResponse>> {
    if (this.#pending.length > 0) return Promise.resolve({ done: false, value: this.#pending.shift()! })
    if (this.#finished) return Promise.resolve({ done: true, value: undefined })
    const round = this.#round
    if (!round) return this.#guard(this.#startRound()).then(this.#continue)
    return readStep(round.chunks, this.#onChunk, this.#onError)
  }

  [READ_THROUGH]<U>(onStep: OnStep<ChatClientResponse, U>, onError: OnError<U>): Promise<U> {
    const round = this.#round
    // Between rounds, held-back chunks and the end take the ordinary way.
    if (!round || this.#pending.length > 0 || this.#finished) return this.next().then(onStep, onError)
    const reactions = (this.#reactions ??= new Reactions(this.#onChunk, this.#onError)).followedBy(
      onStep as OnStep<ChatClientResponse, unknown>,
      onError,
    )
    return readStep(round.chunks, reactions.step, reactions.error) as Promise<U>
  }

  return(): Promise<IteratorResult<ChatClientResponse>> {
    if (!this.#finished) {
      const stopped = new DOMException('The reader stopped the stream.', 'AbortError')
      this.#loop?.emit({
        type: 'tool-loop-end',
        rounds: this.#loop.round,
        reason: 'aborted',
        error: errorInfo(stopped),
      })
    }
    this.#finished = true
    this.#pending = []
    const chunks = this.#round?.chunks
    this.#round = undefined
    chunks?.return?.().catch(() => {})
    return Promise.resolve({ done: true, value: undefined })
  }

  readonly #continue = (): Promise<IteratorResult<ChatClientResponse>> => this.next()

  readonly #onChunk = (
    step: IteratorResult<ChatClientResponse>,
  ): IteratorResult<ChatClientResponse> | Promise<IteratorResult<ChatClientResponse>> => {
    const round = this.#round
    if (!round) return { done: true, value: undefined }
    if (step.done) return this.#guard(this.#endRound(round)).then(this.#continue)
    const chunk = step.value
    round.context = chunk.context
    const chatResponse = chunk.chatResponse
    if (!chatResponse) return { done: false, value: chunk }
    if (!round.aggregator) {
      const shared = aggregatorOf(round.chunks)
      round.aggregates = !shared
      round.aggregator = shared ?? new ChatResponseAggregator()
    }
    if (round.aggregates) round.aggregator.add(chatResponse)
    const visible = withoutToolCalls(chatResponse)
    if (!visible) return readStep(round.chunks, this.#onChunk, this.#onError)
    const usage = visible.metadata.usage
    if (!usage)
      return visible === chatResponse ? step : { done: false, value: { context: round.context, chatResponse: visible } }
    round.usageShown = true
    const total = this.#loop!.usage ? addUsage(this.#loop!.usage, usage)! : usage
    return { done: false, value: { context: round.context, chatResponse: withUsage(visible, total) } }
  }

  readonly #onError = (error: unknown): never => {
    this.#fail(error)
    throw error
  }

  #guard(step: Promise<void>): Promise<void> {
    return step.catch(this.#onError)
  }

  #fail(error: unknown): void {
    if (this.#finished) return
    this.#finished = true
    this.#round = undefined
    const reason = isAbortError(error) ? 'aborted' : 'error'
    this.#loop?.emit({ type: 'tool-loop-end', rounds: this.#loop.round, reason, error: errorInfo(error) })
  }

  async #startRound(): Promise<void> {
    const loop = (this.#loop ??= await this.steps.start())
    const before = this.steps.beforeRound(loop.nextRequest())
    const request = before instanceof Promise ? await before : before
    loop.sending(request)
    this.#round = {
      request,
      chunks: this.steps.openRound(request)[Symbol.asyncIterator](),
      aggregator: undefined,
      aggregates: true,
      context: request.context,
      usageShown: false,
    }
  }

  async #endRound(round: Round): Promise<void> {
    const loop = this.#loop!
    this.#round = undefined
    const aggregate = round.aggregator && round.aggregator.chunkCount > 0 ? round.aggregator.result() : null
    const after = this.steps.afterRound({ chatResponse: aggregate, context: round.context })
    const response = after instanceof Promise ? await after : after
    loop.received(response)
    const end = this.steps.endOfRound(loop, round.request, response)
    const ended = end instanceof Promise ? await end : end
    if (ended.done) {
      this.#pending.push(...finalChunks(ended, response, round.usageShown, loop.usage))
      this.#finished = true
      return
    }
    const next = this.steps.nextInstructions(round.request, response, ended.result)
    loop.advance(next instanceof Promise ? await next : next)
    await this.#startRound()
  }
}

/**
 * A chunk as the caller may see it: tool calls and their progress removed (they never leave the
 * loop; `.stream().parts()` reports them from inside it); null when nothing is left.
 */
function withoutToolCalls(chunk: ChatResponse): ChatResponse | null {
  if (chunk.results[0]?.output.toolCallDeltas) return null
  if (!hasToolCalls(chunk)) return chunk
  const results = chunk.results
    .filter((generation) => generation.output.text !== '')
    .map((generation) => ({ output: { ...generation.output, toolCalls: [] }, metadata: {} }))
  return results.length > 0 ? { results, metadata: chunk.metadata } : null
}

function withUsage(chunk: ChatResponse, usage: Usage): ChatResponse {
  return { results: chunk.results, metadata: { ...chunk.metadata, usage } }
}

/**
 * After the last round: a returnDirect or limit answer (one chunk per generation), tool calls a
 * checker chose not to run, or the summed usage when the last round showed none.
 */
function finalChunks(
  end: { replaced: boolean; response: ChatClientResponse },
  round: ChatClientResponse,
  usageShown: boolean,
  usage: Usage | undefined,
): ChatClientResponse[] {
  const final = end.response
  const context = final.context
  if (end.replaced && final.chatResponse) {
    const metadata = final.chatResponse.metadata
    return final.chatResponse.results.map((generation) => ({
      context,
      chatResponse: { results: [generation], metadata },
    }))
  }
  const chunks: ChatClientResponse[] = []
  for (const generation of round.chatResponse?.results ?? []) {
    if (generation.output.toolCalls.length === 0) continue
    const output = { ...generation.output, text: '' }
    chunks.push({ context, chatResponse: { results: [{ output, metadata: generation.metadata }], metadata: {} } })
  }
  if (!usageShown && usage) {
    chunks.push({
      context,
      chatResponse: { results: [{ output: assistantMessage(''), metadata: {} }], metadata: { usage } },
    })
  }
  return chunks
}
