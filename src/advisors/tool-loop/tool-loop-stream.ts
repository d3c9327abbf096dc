import {
  readerStopped,
  addUsage,
  ChatResponseAggregator,
  ROUND_ANSWER_KEY,
  assistantMessage,
  hasToolCalls,
  streamStage,
  type ChatClientRequest,
  type ChatClientResponse,
  type ChatResponse,
  type Generation,
  type Message,
  type StreamLayer,
  type Usage,
  withUsage,
} from '../../core'
import type { ToolExecutionResult } from '../../tools'
import type { RoundEnd, ToolLoop } from './tool-loop'

/** What the stream needs from the advisor: its hooks and its decisions, bound to one chain. */
export interface ToolLoopSteps {
  start(): Promise<ToolLoop>
  beforeRound(request: ChatClientRequest): Promise<ChatClientRequest>
  openRound(request: ChatClientRequest): AsyncIterable<ChatClientResponse>
  afterRound(response: ChatClientResponse): Promise<ChatClientResponse>
  endOfRound(loop: ToolLoop, request: ChatClientRequest, response: ChatClientResponse): Promise<RoundEnd>
  nextInstructions(
    request: ChatClientRequest,
    response: ChatClientResponse,
    result: ToolExecutionResult,
  ): Promise<Message[]>
}

/**
 * The streaming tool loop: text streams live; tool-call chunks are held back, aggregated, and run
 * between rounds, each round a source of its own.
 */
export function toolLoopStream(steps: ToolLoopSteps): AsyncIterable<ChatClientResponse> {
  return streamStage(new ToolLoopRounds(steps))
}

class ToolLoopRounds implements StreamLayer<ChatClientResponse> {
  /** The round's answer so far, its tool calls included. */
  #round = new ChatResponseAggregator()
  #loop: ToolLoop | undefined
  /** The round's request, and the context of its latest chunk. */
  #request: ChatClientRequest | undefined
  #context: Record<string, unknown> = {}
  #usageShown = false

  constructor(private readonly steps: ToolLoopSteps) {}

  async open(): Promise<AsyncIterable<ChatClientResponse>> {
    this.#loop = await this.steps.start()
    return this.#openRound()
  }

  chunk(chunk: ChatClientResponse): ChatClientResponse | undefined {
    this.#context = chunk.context
    const chatResponse = chunk.chatResponse
    if (!chatResponse) return chunk
    this.#round.add(chatResponse)
    const visible = withoutToolCalls(chatResponse)
    if (!visible) return undefined
    const usage = visible.metadata.usage
    if (!usage) return visible === chatResponse ? chunk : { context: chunk.context, chatResponse: visible }
    this.#usageShown = true
    const total = this.#loop!.usage ? addUsage(this.#loop!.usage, usage)! : usage
    return withUsage({ context: chunk.context, chatResponse: visible }, total)
  }

  async end(): Promise<{ source: AsyncIterable<ChatClientResponse> } | { last: ChatClientResponse[] }> {
    const loop = this.#loop!
    const request = this.#request!
    const aggregate = this.#round.chunkCount > 0 ? this.#round.result() : null
    const response = await this.steps.afterRound({ chatResponse: aggregate, context: this.#context })
    loop.received(response)
    const ended = await this.steps.endOfRound(loop, request, response)
    if (ended.done) return { last: finalChunks(ended, response, this.#usageShown, loop.usage) }
    loop.advance(await this.steps.nextInstructions(request, response, ended.result))
    return { source: await this.#openRound() }
  }

  fail(error: unknown): never {
    this.#loop?.failed(error)
    throw error
  }

  stop(): void {
    this.#loop?.failed(readerStopped())
  }

  async #openRound(): Promise<AsyncIterable<ChatClientResponse>> {
    const request = this.#loop!.sending(await this.steps.beforeRound(this.#loop!.nextRequest()))
    this.#request = request
    this.#context = request.context
    this.#round = new ChatResponseAggregator()
    this.#usageShown = false
    return this.steps.openRound({ ...request, context: { ...request.context, [ROUND_ANSWER_KEY]: this.#round } })
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
  const chunk = (generation: Generation, metadata: ChatResponse['metadata']): ChatClientResponse => ({
    context: final.context,
    chatResponse: { results: [generation], metadata },
  })
  if (end.replaced && final.chatResponse) {
    const metadata = final.chatResponse.metadata
    return final.chatResponse.results.map((generation) => chunk(generation, metadata))
  }
  const chunks: ChatClientResponse[] = []
  for (const generation of round.chatResponse?.results ?? []) {
    if (generation.output.toolCalls.length > 0)
      chunks.push(chunk({ output: { ...generation.output, text: '' }, metadata: generation.metadata }, {}))
  }
  if (!usageShown && usage) chunks.push(chunk({ output: assistantMessage(''), metadata: {} }, { usage }))
  return chunks
}
