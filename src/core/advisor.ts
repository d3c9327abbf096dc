import type { ChatResponse, Prompt, Usage } from './model'
import { streamStage } from './stream-stage'

export const HIGHEST_PRECEDENCE = -2147483648
export const LOWEST_PRECEDENCE = 2147483647

export interface ChatClientRequest {
  prompt: Prompt
  /** Advisor context: plain values shared by the advisors of one call. */
  context: Record<string, unknown>
  signal?: AbortSignal
}

export interface ChatClientResponse {
  chatResponse: ChatResponse | null
  context: Record<string, unknown>
}

/** Lower order = outer: it runs earlier on the way in and later on the way out. */
export interface Advisor {
  readonly name: string
  readonly order: number
}

export interface CallAdvisor extends Advisor {
  adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse>
}

export interface StreamAdvisor extends Advisor {
  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse>
}

/** Anything the chain accepts: an advisor with `adviseCall`, `adviseStream` or both. */
export type AnyAdvisor = Advisor | CallAdvisor | StreamAdvisor

export interface CallAdvisorChain {
  nextCall(request: ChatClientRequest): Promise<ChatClientResponse>
  /** A new chain holding exactly the advisors strictly after `after`: the recursive pattern. */
  copy(after: CallAdvisor): CallAdvisorChain
  readonly callAdvisors: readonly CallAdvisor[]
}

export interface StreamAdvisorChain {
  nextStream(request: ChatClientRequest): AsyncIterable<ChatClientResponse>
  copy(after: StreamAdvisor): StreamAdvisorChain
  readonly streamAdvisors: readonly StreamAdvisor[]
}

export function isCallAdvisor(advisor: Advisor): advisor is CallAdvisor {
  return typeof (advisor as Partial<CallAdvisor>).adviseCall === 'function'
}

export function isStreamAdvisor(advisor: Advisor): advisor is StreamAdvisor {
  return typeof (advisor as Partial<StreamAdvisor>).adviseStream === 'function'
}

/**
 * An advisor written as two plain steps: `before` changes the request on the way in, `after` the
 * response on the way out. On a stream, as in Spring AI, `before` runs once and `after` runs on the
 * chunk that carries the finish reason; the other chunks pass as they are.
 */
export abstract class BaseAdvisor implements CallAdvisor, StreamAdvisor {
  abstract readonly name: string
  abstract readonly order: number

  abstract before(request: ChatClientRequest, chain: CallAdvisorChain | StreamAdvisorChain): Promise<ChatClientRequest>

  abstract after(
    response: ChatClientResponse,
    chain: CallAdvisorChain | StreamAdvisorChain,
  ): Promise<ChatClientResponse>

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    const advised = await this.before(request, chain)
    return this.after(await chain.nextCall(advised), chain)
  }

  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    return streamStage({
      open: async () => chain.nextStream(await this.before(request, chain)),
      chunk: (chunk) => (carriesFinishReason(chunk) ? this.after(chunk, chain) : chunk),
    })
  }
}

/** Whether a streamed chunk ends its answer: one of its results has a finish reason (Spring's `onFinishReason`). */
function carriesFinishReason(response: ChatClientResponse): boolean {
  return response.chatResponse?.results.some((result) => !!result.metadata.finishReason) ?? false
}

/** The response with `usage` in its metadata (a sum over rounds or attempts); unchanged without one. */
export function withUsage(response: ChatClientResponse, usage: Usage | undefined): ChatClientResponse {
  const chatResponse = response.chatResponse
  if (!usage || !chatResponse) return response
  return { ...response, chatResponse: { ...chatResponse, metadata: { ...chatResponse.metadata, usage } } }
}
