import {
  LOWEST_PRECEDENCE,
  type ChainEvent,
  type ChainEventListener,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
  type StreamPart,
  streamStage,
  contextValue,
  ROUND_KEY,
} from '../core'

/**
 * Reports a streamed call's tool calls, approvals and rounds as typed part events, from where they
 * happen: it sits innermost in the tool loop, next to the model, so it sees each call start and its
 * arguments stream (it asks the model for `toolCallDeltas`), and it hears the loop's tool
 * executions and the approval advisor's requests as chain events. Text and reasoning deltas are
 * not its job: the caller reads them from the chunks that leave the loop (returnDirect included).
 */
export class StreamPartsAdvisor implements StreamAdvisor, ChainEventListener {
  readonly name = 'Stream Parts'
  readonly order = LOWEST_PRECEDENCE
  /** The round whose events are reported; tool events between rounds belong to it. */
  round = 0
  readonly #announced = new Set<string>()
  /** The attempt of the round that streams now, from 1 (a validation retry or an escalation starts another). */
  #attempt = 1

  readonly #report: (part: StreamPart) => void

  constructor(report: (part: StreamPart) => void) {
    this.#report = report
  }

  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    const round = contextValue(request.context, ROUND_KEY) ?? this.round + 1
    if (round !== this.round) {
      this.round = round
      this.#attempt = 1
      this.#report({ type: 'round-start', round })
    }
    const options = { ...request.prompt.options, toolCallDeltas: true }
    const forwarded = { ...request, prompt: { ...request.prompt, options } }
    // Ids of calls whose start this round reported, by their place in the message.
    const started = new Map<number, string>()
    let finishReason: string | undefined
    const read = (chunk: ChatClientResponse): ChatClientResponse => {
      const generation = chunk.chatResponse?.results[0]
      if (!generation) return chunk
      finishReason = generation.metadata.finishReason ?? finishReason
      const output = generation.output
      for (const delta of output.toolCallDeltas ?? []) {
        const id = started.get(delta.index) ?? delta.id
        if (!started.has(delta.index)) {
          started.set(delta.index, id)
          this.#start(id, delta.name)
        }
        if (delta.argumentsDelta)
          this.#report({ type: 'tool-call-delta', round, id, argumentsDelta: delta.argumentsDelta })
      }
      for (const call of output.toolCalls) {
        // A model that sends its calls whole starts them here.
        this.#start(call.id, call.name)
        this.#report({ type: 'tool-call', round, id: call.id, name: call.name, arguments: call.arguments })
      }
      return chunk
    }
    return streamStage({
      open: () => chain.nextStream(forwarded),
      chunk: read,
      end: () => this.#report({ type: 'round-end', round, ...(finishReason ? { finishReason } : {}) }),
    })
  }

  onChainEvent(event: ChainEvent): void {
    switch (event.type) {
      case 'approval': {
        const { round, toolCall } = event
        if (event.phase === 'requested')
          this.#report({
            type: 'approval-requested',
            round,
            id: toolCall.id,
            name: toolCall.name,
            arguments: toolCall.arguments,
          })
        else
          this.#report({
            type: 'approval-decided',
            round,
            id: toolCall.id,
            decision: event.decision ?? 'approve',
            ...(event.detail !== undefined ? { detail: event.detail } : {}),
          })
        break
      }
      case 'validation-attempt':
        if (event.retryWith) this.#restart(event.attempt + 1, event.errors)
        break
      case 'escalation':
        // The local answer streamed in part: the fallback's answer replaces it from the start.
        if (event.restarted)
          this.#restart(this.#attempt + 1, [`${event.reason}: ${event.detail ?? event.from} (now ${event.to})`])
        break
      case 'tool-execution-start':
        this.#report({ type: 'tool-start', round: event.round, id: event.toolCall.id, name: event.toolCall.name })
        break
      case 'tool-execution-end':
        this.#report({
          type: 'tool-result',
          round: event.round,
          id: event.toolCall.id,
          name: event.toolCall.name,
          result: event.result,
          isError: event.error !== undefined,
        })
        break
    }
  }

  /** Reports a part of the stream of a sub-agent that tool call `id` (of tool `name`) runs. */
  reportAgentPart(id: string, name: string, part: StreamPart): void {
    this.#report({ type: 'agent-part', round: this.round, id, name, part })
  }

  #restart(attempt: number, errors: string[]): void {
    this.#attempt = attempt
    this.#report({ type: 'attempt-start', round: this.round, attempt, errors })
  }

  #start(id: string, name: string): void {
    // A call replayed on resume, or announced already, starts once.
    if (this.#announced.has(id)) return
    this.#announced.add(id)
    this.#report({ type: 'tool-call-start', round: this.round, id, name })
  }
}
