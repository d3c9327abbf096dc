import {
  errorInfo,
  type ErrorInfo,
  isAbortError,
  type AssistantMessage,
  type Message,
  type UserMessage,
  type ToolCall,
  addUsage,
  type ChatOptions,
  type ChatResponse,
  type Usage,
  type ToolSource,
  type ToolDefinition,
  now,
  registeredSecrets,
  forkOriginOf,
  AGENT_CALL_KEY,
  type AgentCall,
} from '../../core'
import {
  TRACE_VERSION,
  type RunStatus,
  type TraceEvent,
  type TraceEventOf,
  type TraceEventType,
  type TraceEventBody,
  type TraceSink,
  type TracedAdvisor,
  type TracedOptions,
  type Redactor,
  type Pricing,
  costOf,
  estimatedUsage,
  priceOf,
} from '../../trace'
import { ChunkRecorder } from './chunk-recorder'
import { tracedParts } from './traced-parts'

/** Turns what an observer sees of one run into trace events: ids, rounds, timing, usage, deltas. */
export class RunRecorder {
  readonly runId: string
  readonly #startedAt = now()
  #rounds = 0
  #usage: Usage | undefined
  finishReason: string | undefined
  #lastMessages: readonly Message[] | undefined
  #lastLength = 0
  /** Records the chunks of streamed responses, made with the first one. */
  #chunks: ChunkRecorder | undefined
  #lastOptions: ChatOptions | undefined
  #lastTracedOptions: TracedOptions | undefined
  #lastCall: ToolCall | undefined
  #lastArguments: string | undefined
  #lastTracedCall: ToolCall | undefined
  /** Prices to cost each response at (the observer's `pricing`), and the escalation fallback's model id. */
  readonly #pricing: Pricing | undefined
  fallbackModel: string | undefined
  /** The characters of the last request's messages, to estimate its tokens when the provider reports none. */
  #promptCharacters = 0

  readonly #sink: TraceSink
  readonly #nextSeq: () => number
  readonly #advisor: string
  readonly #redactor: Redactor

  constructor(
    runId: string,
    sink: TraceSink,
    redactor: Redactor,
    nextSeq: () => number,
    advisor: string,
    pricing?: Pricing,
  ) {
    this.runId = runId
    this.#pricing = pricing
    this.#redactor = redactor
    this.#sink = sink
    this.#nextSeq = nextSeq
    this.#advisor = advisor
  }

  get chunks(): ChunkRecorder {
    return (this.#chunks ??= new ChunkRecorder(this, this.#redactor))
  }

  /** A new event of `type`: the one place an event's header is written. The caller sets the event's own fields on it and sends it. */
  #event<T extends TraceEventType>(type: T, round: number, advisor: string, t: number): TraceEventOf<T> {
    // Joined chunks come before whatever follows them.
    this.#chunks?.flush()
    const header = { type, v: TRACE_VERSION, seq: this.#nextSeq(), runId: this.runId, round, advisor, t }
    return header as TraceEventOf<T>
  }

  #send(event: TraceEvent): void {
    try {
      this.#sink.emit(event)
    } catch (error) {
      console.error('A trace sink failed; the run goes on without it', error)
    }
  }

  /** Sends an event of `body`'s fields. `t`: when it happened, if the caller read the clock. */
  emit(round: number, body: TraceEventBody, advisor = this.#advisor, t = now()): void {
    this.#send(Object.assign(this.#event(body.type, round, advisor, t), body))
  }

  /** Sends an advisor's report (validation, evaluation, escalation, note…) as it came, every text in it masked. */
  report(round: number, report: object, advisor: string): void {
    this.emit(round, this.#redactor.data(report) as TraceEventBody, advisor)
  }

  roundStart(round: number, advisor: string, t: number): void {
    this.#send(this.#event('round-start', round, advisor, t))
  }

  roundEnd(round: number, status: RunStatus, durationMs: number, advisor: string, t = now()): void {
    const event = this.#event('round-end', round, advisor, t)
    event.status = status
    event.durationMs = durationMs
    this.#send(event)
  }

  start(
    mode: 'call' | 'stream',
    observer: 'inside-loop' | 'outside-loop' | 'no-loop',
    chain: TracedAdvisor[],
    context: Readonly<Record<string, unknown>>,
  ): void {
    const body: TraceEventBody & { type: 'run-start' } = {
      type: 'run-start',
      mode,
      startedAt: Date.now(),
      observer,
      chain,
    }
    const forkOf = forkOriginOf(context)
    if (forkOf) body.forkOf = forkOf
    const parent = context[AGENT_CALL_KEY] as Partial<AgentCall> | undefined
    if (typeof parent?.parentRunId === 'string') body.parentRunId = parent.parentRunId
    if (typeof parent?.parentToolCallId === 'string') body.parentToolCallId = parent.parentToolCallId
    this.emit(0, body, this.#advisor, this.#startedAt)
  }

  request(round: number, messages: readonly Message[], options: ChatOptions, t?: number, provider?: string): void {
    if (round > this.#rounds) this.#rounds = round
    const shared = this.#sharedPrefix(messages)
    this.#lastMessages = messages
    this.#lastLength = messages.length
    if (this.#pricing) this.#promptCharacters = charactersOf(messages)
    const sent: Message[] = []
    for (let i = shared; i < messages.length; i++) sent.push(this.#message(messages[i]!))
    const event = this.#event('model-request', round, this.#advisor, t ?? now())
    event.messages = sent
    event.options = this.#options(options)
    if (provider) event.provider = provider
    if (shared > 0) event.shared = shared
    this.#send(event)
  }

  /** How a run whose rounds the observer does not see (it sits outside the loop) ended: its usage and finish reason. */
  outcome(response: ChatResponse | null): void {
    this.#usage = response?.metadata.usage
    this.finishReason = response?.results[0]?.metadata.finishReason ?? this.finishReason
  }

  response(round: number, response: ChatResponse | null, timing: ResponseTiming): void {
    this.#chunks?.endOfResponse(round)
    const generation = response?.results[0]
    const output = generation?.output
    const metadata = response?.metadata
    const model = metadata?.model
    const usage = metadata?.usage
    const finishReason = generation?.metadata.finishReason
    if (usage) this.#usage = addUsage(this.#usage, usage)
    this.finishReason = finishReason ?? this.finishReason
    const generationSeconds = (timing.durationMs - (timing.timeToFirstTokenMs ?? 0)) / 1000
    const text = this.#redactor.text(output?.text ?? '')
    const toolCalls = (output?.toolCalls ?? []).map((call) => this.tracedToolCall(call))
    const event = this.#event('model-response', round, this.#advisor, timing.at ?? now())
    event.text = text
    event.toolCalls = toolCalls
    event.durationMs = timing.durationMs
    if (output?.reasoning) event.reasoning = this.#redactor.text(output.reasoning)
    if (output?.parts) event.parts = tracedParts(output.parts, this.#redactor)
    if (finishReason) event.finishReason = this.#redactor.text(finishReason)
    if (usage) event.usage = usage
    if (typeof model === 'string') event.model = this.#redactor.text(model)
    if (timing.timeToFirstTokenMs !== undefined) event.timeToFirstTokenMs = timing.timeToFirstTokenMs
    // A speed needs text that streamed after a first token; tool calls arrive whole, in no measurable time.
    if (usage && timing.timeToFirstTokenMs !== undefined && output?.text && generationSeconds > 0)
      event.tokensPerSecond = usage.completionTokens / generationSeconds
    if (timing.chunks !== undefined) event.chunks = timing.chunks
    // Metadata beyond what the event has fields for (provider ids, thinking, speed figures); most responses have none.
    let extra: Record<string, unknown> | undefined
    for (const key in metadata)
      if (key !== 'model' && key !== 'usage' && (key !== 'id' || metadata[key])) (extra ??= {})[key] = metadata[key]
    for (const key in generation?.metadata) if (key !== 'finishReason') (extra ??= {})[key] = generation.metadata[key]
    if (extra) event.metadata = this.#redactor.data(extra) as Record<string, unknown>
    const pricing = this.#pricing
    if (pricing) {
      // The response's cost at the app's prices: from the usage reported, else from an estimate marked as one.
      let costed = usage
      if (!costed) {
        costed = event.estimatedUsage = estimatedUsage(this.#promptCharacters, output ? charactersOf([output]) : 0)
        event.costEstimated = true
      }
      const price = priceOf(pricing, typeof model === 'string' ? model : undefined)
      if (price) event.costUsd = costOf(costed, price)
      const fallback = this.fallbackModel
      const fallbackPrice = fallback !== model && !metadata?.escalation ? priceOf(pricing, fallback) : undefined
      if (fallbackPrice) event.fallbackCostUsd = costOf(costed, fallbackPrice)
    }
    this.#send(event)
  }

  approval(
    approval: {
      phase: 'requested' | 'decided'
      round: number
      toolCall: ToolCall
      decision?: 'approve' | 'edit' | 'reject'
      detail?: string
    },
    advisor: string,
  ): void {
    const { phase, round, toolCall, decision, detail } = approval
    const body: TraceEventBody = { type: 'approval', phase, toolCall: this.tracedToolCall(toolCall) }
    if (decision) body.decision = decision
    // An edit's detail is the edited arguments: masked as the call's own are (other text stays text).
    if (detail !== undefined) body.detail = this.#redactor.arguments(detail)
    this.emit(round, body, advisor)
  }

  toolStart(round: number, start: { toolCall: ToolCall; source?: ToolSource }, advisor: string, t?: number): void {
    const toolCall = this.tracedToolCall(start.toolCall)
    const event = this.#event('tool-start', round, advisor, t ?? now())
    event.toolCall = toolCall
    if (start.source) event.source = this.#redactor.data(start.source) as ToolSource
    this.#send(event)
  }

  toolEnd(
    round: number,
    end: {
      toolCall: ToolCall
      result: string
      error?: string
      durationMs: number
      returnDirect: boolean
      setupMs?: number
      at?: number
      source?: ToolSource
      detail?: Record<string, unknown>
    },
    advisor: string,
  ): void {
    const toolCall = this.tracedToolCall(end.toolCall)
    const result = this.#redactor.text(end.result)
    const event = this.#event('tool-end', round, advisor, end.at ?? now())
    event.toolCall = toolCall
    event.result = result
    event.durationMs = end.durationMs
    event.returnDirect = end.returnDirect
    if (end.error !== undefined) event.error = this.#redactor.text(end.error)
    if (end.setupMs !== undefined) event.setupMs = end.setupMs
    if (end.source) event.source = this.#redactor.data(end.source) as ToolSource
    if (end.detail) event.detail = this.#redactor.data(end.detail) as Record<string, unknown>
    this.#send(event)
  }

  failure(round: number, error: unknown): void {
    this.emit(round, { type: 'error', error: this.error(errorInfo(error)), aborted: isAbortError(error) })
  }

  end(status: RunStatus, error?: ErrorInfo): void {
    // The observer keeps ended runs a while (late evaluations): it must not keep their conversation.
    this.#lastMessages = undefined
    this.#lastCall = this.#lastTracedCall = undefined
    this.#lastOptions = this.#lastTracedOptions = undefined
    this.#chunks?.clear()
    const ended = now()
    const body: TraceEventBody & { type: 'run-end' } = {
      type: 'run-end',
      status,
      durationMs: ended - this.#startedAt,
      rounds: this.#rounds,
    }
    if (this.#usage) body.usage = this.#usage
    if (this.finishReason) body.finishReason = this.#redactor.text(this.finishReason)
    if (error) body.error = this.error(error)
    this.emit(0, body, this.#advisor, ended)
  }

  /** How many leading messages this request shares with the run's previous one (by identity). */
  #sharedPrefix(messages: readonly Message[]): number {
    const last = this.#lastMessages
    if (!last) return 0
    const limit = Math.min(this.#lastLength, messages.length)
    // The tool loop appends to one array: the same array means the old messages are all still there.
    if (last === messages) return limit
    let shared = 0
    while (shared < limit && messages[shared] === last[shared]) shared++
    return shared
  }

  #message(message: Message): Message {
    let traced: Message
    switch (message.role) {
      case 'tool':
        traced = {
          role: 'tool',
          responses: message.responses.map((response) => ({
            id: response.id,
            name: this.#redactor.text(response.name),
            responseData: this.#redactor.text(response.responseData),
          })),
        }
        break
      case 'assistant': {
        const assistant: AssistantMessage = {
          role: 'assistant',
          text: this.#redactor.text(message.text),
          toolCalls: message.toolCalls.map((call) => this.tracedToolCall(call)),
        }
        if (message.reasoning) assistant.reasoning = this.#redactor.text(message.reasoning)
        if (message.parts) assistant.parts = tracedParts(message.parts, this.#redactor)
        traced = assistant
        break
      }
      default:
        traced = { role: message.role, text: this.#redactor.text(message.text) }
        if (message.role === 'user' && message.parts)
          (traced as UserMessage).parts = tracedParts(message.parts, this.#redactor)
    }
    if (message.metadata) traced.metadata = this.#redactor.data(message.metadata, 'metadata') as Record<string, unknown>
    return traced
  }

  /**
   * A tool call as the trace shows it: its name and arguments masked (the provider makes its id). A round shows each call four
   * times (response, tool start and end, next request): the same unchanged call is traced once.
   */
  tracedToolCall(call: ToolCall): ToolCall {
    const last = this.#lastTracedCall
    // The same object unchanged (a streamed call may grow in place before it is complete).
    if (
      call === this.#lastCall &&
      call.arguments === this.#lastArguments &&
      call.id === last!.id &&
      call.name === last!.name
    )
      return last!
    const traced = {
      id: call.id,
      name: this.#redactor.text(call.name),
      arguments: this.#redactor.arguments(call.arguments),
    }
    this.#lastCall = call
    this.#lastArguments = call.arguments
    this.#lastTracedCall = traced
    return traced
  }

  // The tool loop sends the same options object every round; trace it once.
  #options(options: ChatOptions): TracedOptions {
    if (options === this.#lastOptions) return this.#lastTracedOptions!
    const { tools, toolContext, responseFormat, ...rest } = options
    // Provider options too: a key that names a secret is masked at any depth.
    const traced = this.#redactor.data(rest) as TracedOptions
    // Schemas name fields like `password`: their names stay, their texts and example values are masked.
    if (responseFormat)
      traced.responseFormat = this.#redactor.data(responseFormat, 'schema') as TracedOptions['responseFormat']
    if (tools?.length) traced.tools = tools.map((tool) => tracedDefinition(tool.definition, this.#redactor))
    if (toolContext) traced.toolContextKeys = Object.keys(toolContext)
    this.#lastOptions = options
    return (this.#lastTracedOptions = traced)
  }

  /** Every text of an error is masked: servers echo keys in codes and request ids too. */
  error(error: ErrorInfo): ErrorInfo {
    const masked: ErrorInfo = {
      ...error,
      name: this.#redactor.text(error.name),
      message: this.#redactor.text(error.message),
    }
    if (error.code !== undefined) masked.code = this.#redactor.text(error.code)
    return masked
  }
}

/**
 * Tool definitions as traced: a tool's definition is the same object run after run, so its schema
 * is masked once (again by another redactor, or once another secret is registered).
 */
const tracedDefinitions = new WeakMap<
  ToolDefinition,
  { redactor: Redactor; secrets: unknown; traced: ToolDefinition }
>()

function tracedDefinition(definition: ToolDefinition, redactor: Redactor): ToolDefinition {
  const secrets = registeredSecrets()
  const known = tracedDefinitions.get(definition)
  if (known?.redactor === redactor && known.secrets === secrets) return known.traced
  const traced = redactor.data(definition, 'schema') as ToolDefinition
  tracedDefinitions.set(definition, { redactor, secrets, traced })
  return traced
}

/** How many characters the messages' texts and tool calls hold. */
function charactersOf(messages: readonly Message[]): number {
  let characters = 0
  for (const message of messages) {
    if (message.role === 'tool') for (const response of message.responses) characters += response.responseData.length
    else characters += message.text.length
    if (message.role === 'assistant') for (const call of message.toolCalls) characters += call.arguments.length
  }
  return characters
}

export interface ResponseTiming {
  durationMs: number
  /** When the response was complete (`performance.now()`), when the caller read it already. */
  at?: number
  timeToFirstTokenMs?: number
  chunks?: number
}
