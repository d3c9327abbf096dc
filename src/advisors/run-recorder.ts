import {
  errorInfo,
  type ErrorInfo,
  isAbortError,
  type Message,
  type ToolCall,
  addUsage,
  type ChatOptions,
  type ChatResponse,
  type Usage,
  type ToolSource,
} from '../core'
import {
  TRACE_VERSION,
  type RunStatus,
  type TraceEvent,
  type TraceEventBody,
  type TraceSink,
  type TracedAdvisor,
  type TracedOptions,
  type Redactor,
} from '../trace'
import { ChunkJoiner, type ChunkBody } from './chunk-joiner'
import { StreamedTail } from './streamed-tail'

/** Turns what an observer sees of one run into trace events: ids, rounds, timing, usage, deltas. */
export class RunRecorder {
  readonly startedAt = performance.now()
  rounds = 0
  usage: Usage | undefined
  finishReason: string | undefined
  #lastMessages: readonly Message[] | undefined
  #lastLength = 0
  /** The text streamed so far in this response, to catch a secret split across chunks; with the chunk joiner made at the first chunk. */
  #streamedTail: StreamedTail | undefined
  #chunks: ChunkJoiner | undefined
  #lastOptions: ChatOptions | undefined
  #lastTracedOptions: TracedOptions | undefined
  #lastCall: ToolCall | undefined
  #lastArguments: string | undefined
  #lastTracedCall: ToolCall | undefined

  constructor(
    readonly runId: string,
    private readonly sink: TraceSink,
    private readonly redactor: Redactor,
    private readonly nextSeq: () => number,
    private readonly advisor: string,
  ) {}

  /** `t`: when it happened, if the caller already read the clock (a read costs a few hundred ns in a page). */
  emit(round: number, body: TraceEventBody, advisor = this.advisor, t = performance.now()): void {
    // Joined chunks come before whatever follows them.
    if (this.#chunks?.pending) this.#chunks.flush()
    // The body is always a fresh object, so the header is written onto it: no copy per event.
    const event = body as TraceEvent
    event.v = TRACE_VERSION
    event.seq = this.nextSeq()
    event.runId = this.runId
    event.round = round
    event.advisor = advisor
    event.t = t
    this.#send(event)
  }

  /**
   * `emit` for `round-start` and `round-end`. The events a round sends go through copies of `emit`,
   * one per kind (also model and tool events): the header stores then see a few object shapes each
   * and stay fast, where one copy for every kind of event sees too many (a tenth of an observed round).
   */
  emitRound(round: number, body: TraceEventBody, advisor = this.advisor, t = performance.now()): void {
    // Joined chunks come before whatever follows them.
    if (this.#chunks?.pending) this.#chunks.flush()
    // The body is always a fresh object, so the header is written onto it: no copy per event.
    const event = body as TraceEvent
    event.v = TRACE_VERSION
    event.seq = this.nextSeq()
    event.runId = this.runId
    event.round = round
    event.advisor = advisor
    event.t = t
    this.#send(event)
  }

  #emitModel(round: number, body: TraceEventBody, advisor = this.advisor, t = performance.now()): void {
    // Joined chunks come before whatever follows them.
    if (this.#chunks?.pending) this.#chunks.flush()
    // The body is always a fresh object, so the header is written onto it: no copy per event.
    const event = body as TraceEvent
    event.v = TRACE_VERSION
    event.seq = this.nextSeq()
    event.runId = this.runId
    event.round = round
    event.advisor = advisor
    event.t = t
    this.#send(event)
  }

  #emitTool(round: number, body: TraceEventBody, advisor = this.advisor, t = performance.now()): void {
    // Joined chunks come before whatever follows them.
    if (this.#chunks?.pending) this.#chunks.flush()
    // The body is always a fresh object, so the header is written onto it: no copy per event.
    const event = body as TraceEvent
    event.v = TRACE_VERSION
    event.seq = this.nextSeq()
    event.runId = this.runId
    event.round = round
    event.advisor = advisor
    event.t = t
    this.#send(event)
  }

  #send(event: TraceEvent): void {
    try {
      this.sink.emit(event)
    } catch (error) {
      console.error('A trace sink failed; the run goes on without it', error)
    }
  }

  start(
    mode: 'call' | 'stream',
    observer: 'inside-loop' | 'outside-loop' | 'no-loop',
    chain: TracedAdvisor[],
    forkOf?: { runId: string; round: number },
  ): void {
    const body: TraceEventBody & { type: 'run-start' } = {
      type: 'run-start',
      mode,
      startedAt: Date.now(),
      observer,
      chain,
    }
    if (forkOf) body.forkOf = forkOf
    this.emit(0, body, this.advisor, this.startedAt)
  }

  request(round: number, messages: readonly Message[], options: ChatOptions, t?: number, provider?: string): void {
    this.rounds = Math.max(this.rounds, round)
    const shared = this.#sharedPrefix(messages)
    this.#lastMessages = messages
    this.#lastLength = messages.length
    const sent: Message[] = []
    for (let i = shared; i < messages.length; i++) sent.push(this.#message(messages[i]!))
    // Field by field in the order a trace file shows them: a spread per optional field costs an object each.
    const body = { type: 'model-request' } as TraceEventBody & { type: 'model-request' }
    if (provider) body.provider = provider
    body.messages = sent
    if (shared > 0) body.shared = shared
    body.options = this.#options(options)
    this.#emitModel(round, body, this.advisor, t)
  }

  chunk(round: number, index: number, chunk: ChatResponse): void {
    const generation = chunk.results[0]
    const toolCalls = generation?.output.toolCalls
    const usage = chunk.metadata.usage
    const finishReason = generation?.metadata.finishReason
    const tail = (this.#streamedTail ??= new StreamedTail(this.redactor))
    if (index === 0) tail.reset()
    const text = tail.mask(generation?.output.text ?? '')
    const reasoning = generation?.output.reasoning
    if (!toolCalls?.length && !finishReason && !usage && !reasoning) return this.#joiner().add(round, index, text)
    const body: ChunkBody = { type: 'model-chunk', index, text }
    if (reasoning) body.reasoning = this.redactor.text(reasoning)
    if (toolCalls?.length) body.toolCalls = toolCalls.map((call) => this.#toolCall(call))
    if (finishReason) body.finishReason = finishReason
    if (usage) body.usage = usage
    this.emit(round, body)
  }

  response(round: number, response: ChatResponse | null, timing: ResponseTiming): void {
    const generation = response?.results[0]
    const metadata = response?.metadata
    const usage = metadata?.usage
    const finishReason = generation?.metadata.finishReason
    this.usage = addUsage(this.usage, usage)
    this.finishReason = finishReason ?? this.finishReason
    const extra = hasExtra(metadata, generation?.metadata) ? this.#extra(metadata, generation?.metadata) : undefined
    const generationSeconds = (timing.durationMs - (timing.timeToFirstTokenMs ?? 0)) / 1000
    // Filled field by field in the order a trace file shows them; a spread per optional field costs an object each.
    const body = {
      type: 'model-response',
      text: this.redactor.text(generation?.output.text ?? ''),
      ...(generation?.output.reasoning ? { reasoning: this.redactor.text(generation.output.reasoning) } : {}),
      toolCalls: (generation?.output.toolCalls ?? []).map((call) => this.#toolCall(call)),
    } as TraceEventBody & { type: 'model-response' }
    if (finishReason) body.finishReason = finishReason
    if (usage) body.usage = usage
    if (typeof metadata?.model === 'string') body.model = metadata.model
    body.durationMs = timing.durationMs
    if (timing.timeToFirstTokenMs !== undefined) body.timeToFirstTokenMs = timing.timeToFirstTokenMs
    // A speed needs text that streamed after a first token; tool calls arrive whole, in no measurable time.
    if (usage && timing.timeToFirstTokenMs !== undefined && generation?.output.text && generationSeconds > 0)
      body.tokensPerSecond = usage.completionTokens / generationSeconds
    if (timing.chunks !== undefined) body.chunks = timing.chunks
    if (extra && Object.keys(extra).length > 0) body.metadata = extra
    this.#emitModel(round, body, this.advisor, timing.at)
  }

  #joiner(): ChunkJoiner {
    return (this.#chunks ??= new ChunkJoiner((round, body, t) => this.emit(round, body, this.advisor, t)))
  }

  /** Response metadata beyond id, model, usage and finish reason, masked. */
  #extra(
    metadata: ChatResponse['metadata'] | undefined,
    generation: Record<string, unknown> | undefined,
  ): Record<string, unknown> | undefined {
    const { id, model: _model, usage: _usage, ...rest } = metadata ?? {}
    return this.redactor.data({ ...(id ? { id } : {}), ...rest, ...generationExtra(generation) }) as
      Record<string, unknown> | undefined
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
    this.emit(
      round,
      {
        type: 'approval',
        phase,
        toolCall: this.#toolCall(toolCall),
        ...(decision ? { decision } : {}),
        ...(detail !== undefined ? { detail: this.redactor.text(detail) } : {}),
      },
      advisor,
    )
  }

  redact(text: string): string {
    return this.redactor.text(text)
  }

  toolStart(round: number, start: { toolCall: ToolCall; source?: ToolSource }, advisor: string, t?: number): void {
    const body: TraceEventBody & { type: 'tool-start' } = {
      type: 'tool-start',
      toolCall: this.#toolCall(start.toolCall),
    }
    if (start.source) body.source = this.#source(start.source)
    this.#emitTool(round, body, advisor, t)
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
    const body = {
      type: 'tool-end',
      toolCall: this.#toolCall(end.toolCall),
      result: this.redactor.text(end.result),
    } as TraceEventBody & { type: 'tool-end' }
    if (end.error !== undefined) body.error = this.redactor.text(end.error)
    body.durationMs = end.durationMs
    body.returnDirect = end.returnDirect
    if (end.setupMs !== undefined) body.setupMs = end.setupMs
    if (end.source) body.source = this.#source(end.source)
    if (end.detail) body.detail = this.redactor.data(end.detail) as Record<string, unknown>
    this.#emitTool(round, body, advisor, end.at)
  }

  #source(source: ToolSource): ToolSource {
    return this.redactor.data(source) as ToolSource
  }

  validation(
    round: number,
    attempt: {
      attempt: number
      valid: boolean
      errors: string[]
      durationMs?: number
      output?: string
      retryWith?: string
    },
    advisor: string,
  ): void {
    const { attempt: number, valid, errors, durationMs, output, retryWith } = attempt
    this.emit(
      round,
      {
        type: 'validation',
        attempt: number,
        valid,
        errors: errors.map((error) => this.redactor.text(error)),
        ...(durationMs !== undefined ? { durationMs } : {}),
        ...(output !== undefined ? { output: this.redactor.text(output) } : {}),
        ...(retryWith !== undefined ? { retryWith: this.redactor.text(retryWith) } : {}),
      },
      advisor,
    )
  }

  failure(round: number, error: unknown): void {
    this.emit(round, { type: 'error', error: this.#error(errorInfo(error)), aborted: isAbortError(error) })
  }

  end(status: RunStatus, error?: ErrorInfo): void {
    // The observer keeps ended runs a while (late evaluations): it must not keep their conversation.
    this.#lastMessages = undefined
    this.#lastCall = this.#lastTracedCall = undefined
    this.#streamedTail?.reset()
    this.#lastOptions = this.#lastTracedOptions = undefined
    const now = performance.now()
    const body: TraceEventBody & { type: 'run-end' } = {
      type: 'run-end',
      status,
      durationMs: now - this.startedAt,
      rounds: this.rounds,
    }
    if (this.usage) body.usage = this.usage
    if (this.finishReason) body.finishReason = this.finishReason
    if (error) body.error = this.#error(error)
    this.emit(0, body, this.advisor, now)
  }

  /** How many leading messages this request shares with the run's previous one (by identity). */
  #sharedPrefix(messages: readonly Message[]): number {
    const last = this.#lastMessages
    if (!last) return 0
    // The tool loop appends to one array: the same array means the old messages are all still there.
    if (last === messages) return Math.min(this.#lastLength, messages.length)
    const limit = Math.min(this.#lastLength, messages.length)
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
            ...response,
            responseData: this.redactor.text(response.responseData),
          })),
        }
        break
      case 'assistant':
        traced = {
          role: 'assistant',
          text: this.redactor.text(message.text),
          toolCalls: message.toolCalls.map((call) => this.#toolCall(call)),
        }
        if (message.reasoning) traced.reasoning = this.redactor.text(message.reasoning)
        break
      default:
        traced = { role: message.role, text: this.redactor.text(message.text) }
    }
    if (message.metadata) traced.metadata = this.redactor.data(message.metadata) as Record<string, unknown>
    return traced
  }

  // A round traces each call four times (response, tool start and end, next request): once is enough.
  #toolCall(call: ToolCall): ToolCall {
    const last = this.#lastTracedCall
    // The same object unchanged (a streamed call may grow in place before it is complete).
    if (
      call === this.#lastCall &&
      call.arguments === this.#lastArguments &&
      call.id === last!.id &&
      call.name === last!.name
    )
      return last!
    const traced = { id: call.id, name: call.name, arguments: this.redactor.text(call.arguments) }
    this.#lastCall = call
    this.#lastArguments = call.arguments
    this.#lastTracedCall = traced
    return traced
  }

  // The tool loop sends the same options object every round; trace it once.
  #options(options: ChatOptions): TracedOptions {
    if (options === this.#lastOptions) return this.#lastTracedOptions!
    const traced = this.#traceOptions(options)
    this.#lastOptions = options
    this.#lastTracedOptions = traced
    return traced
  }

  #traceOptions(options: ChatOptions): TracedOptions {
    const { tools, toolContext, providerOptions, ...rest } = options
    const traced = this.redactor.data(rest) as TracedOptions
    if (tools?.length) traced.tools = tools.map((tool) => ({ ...tool.definition }))
    if (toolContext) traced.toolContextKeys = Object.keys(toolContext)
    if (providerOptions)
      traced.providerOptions = this.redactor.data(providerOptions) as TracedOptions['providerOptions']
    return traced
  }

  #error(error: ErrorInfo): ErrorInfo {
    return { ...error, message: this.redactor.text(error.message) }
  }
}

export interface ResponseTiming {
  durationMs: number
  /** When the response was complete (`performance.now()`), when the caller read it already. */
  at?: number
  timeToFirstTokenMs?: number
  chunks?: number
}

/** Whether a response carries metadata beyond what the event has fields for (most carry none). */
function hasExtra(metadata: object | undefined, generation: object | undefined): boolean {
  for (const key in metadata) if (key !== 'model' && key !== 'usage') return true
  for (const key in generation) if (key !== 'finishReason') return true
  return false
}

function generationExtra(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!metadata) return {}
  const { finishReason: _finishReason, ...rest } = metadata
  return rest
}
