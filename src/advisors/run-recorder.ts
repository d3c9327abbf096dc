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
  SecretStreamScrubber,
  scrubSecretsDeep,
} from '../core'
import {
  TRACE_VERSION,
  type RunStatus,
  type TraceEventBody,
  type TraceHeader,
  type TraceSink,
  type TracedAdvisor,
  type TracedOptions,
  REDACTED,
  type Redactor,
} from '../trace'

/** Turns what an observer sees of one run into trace events: ids, rounds, timing, usage, deltas. */
export class RunRecorder {
  readonly startedAt = performance.now()
  rounds = 0
  usage: Usage | undefined
  finishReason: string | undefined
  #lastMessages: readonly Message[] | undefined
  #lastLength = 0
  /** The end of the text streamed so far in this response, to catch a pattern split across chunks. */
  #streamedTail = ''
  /** Holds back the end of a chunk that may be the start of a registered secret. */
  #streamScrubber = new SecretStreamScrubber()
  #lastChunkIndex = -1
  readonly #tracedOptions = new WeakMap<ChatOptions, TracedOptions>()

  constructor(
    readonly runId: string,
    private readonly sink: TraceSink,
    private readonly redactor: Redactor,
    private readonly nextSeq: () => number,
    private readonly advisor: string,
  ) {}

  emit(round: number, body: TraceEventBody, advisor = this.advisor): void {
    // The body is always a fresh object, so the header is written onto it rather than copied.
    const header: TraceHeader = {
      v: TRACE_VERSION,
      seq: this.nextSeq(),
      runId: this.runId,
      round,
      advisor,
      t: performance.now(),
    }
    const event = Object.assign(body, header)
    try {
      this.sink.emit(event)
    } catch (error) {
      console.error('A trace sink failed; the run goes on without it', error)
    }
  }

  start(mode: 'call' | 'stream', observer: 'inside-loop' | 'outside-loop' | 'no-loop', chain: TracedAdvisor[]): void {
    this.emit(0, { type: 'run-start', mode, startedAt: Date.now(), observer, chain })
  }

  request(round: number, messages: readonly Message[], options: ChatOptions): void {
    this.rounds = Math.max(this.rounds, round)
    const shared = this.#sharedPrefix(messages)
    this.#lastMessages = messages
    this.#lastLength = messages.length
    const sent = (shared > 0 ? messages.slice(shared) : messages).map((message) => this.#message(message))
    this.emit(round, {
      type: 'model-request',
      messages: sent,
      ...(shared > 0 ? { shared } : {}),
      options: this.#options(options),
    })
  }

  chunk(round: number, index: number, chunk: ChatResponse): void {
    const generation = chunk.results[0]
    const toolCalls = generation?.output.toolCalls
    const usage = chunk.metadata.usage
    const finishReason = generation?.metadata.finishReason
    if (index === 0) {
      this.#streamedTail = ''
      this.#streamScrubber = new SecretStreamScrubber()
    }
    this.#lastChunkIndex = index
    let text = this.#streamScrubber.push(generation?.output.text ?? '')
    if (finishReason) text += this.#streamScrubber.flush()
    const body: TraceEventBody & { type: 'model-chunk' } = { type: 'model-chunk', index, text: this.#chunkText(text) }
    if (toolCalls?.length) body.toolCalls = toolCalls.map((call) => this.#toolCall(call))
    if (finishReason) body.finishReason = finishReason
    if (usage) body.usage = usage
    this.emit(round, body)
  }

  response(round: number, response: ChatResponse | null, timing: ResponseTiming): void {
    // A stream that ended without a finish reason may still hold the end of its text back.
    const heldBack = this.#lastChunkIndex >= 0 ? this.#streamScrubber.flush() : ''
    if (heldBack)
      this.emit(round, { type: 'model-chunk', index: this.#lastChunkIndex + 1, text: this.#chunkText(heldBack) })
    this.#lastChunkIndex = -1
    const generation = response?.results[0]
    const usage = response?.metadata.usage
    this.usage = addUsage(this.usage, usage)
    this.finishReason = generation?.metadata.finishReason ?? this.finishReason
    const { id, model, usage: _usage, ...rest } = response?.metadata ?? {}
    const extra = this.redactor.data({ ...(id ? { id } : {}), ...rest, ...generationExtra(generation?.metadata) }) as
      Record<string, unknown> | undefined
    const generationSeconds = (timing.durationMs - (timing.timeToFirstTokenMs ?? 0)) / 1000
    this.emit(round, {
      type: 'model-response',
      text: this.redactor.text(generation?.output.text ?? ''),
      toolCalls: (generation?.output.toolCalls ?? []).map((call) => this.#toolCall(call)),
      ...(generation?.metadata.finishReason ? { finishReason: generation.metadata.finishReason } : {}),
      ...(usage ? { usage } : {}),
      ...(typeof model === 'string' ? { model } : {}),
      durationMs: timing.durationMs,
      ...(timing.timeToFirstTokenMs !== undefined ? { timeToFirstTokenMs: timing.timeToFirstTokenMs } : {}),
      ...(usage && generationSeconds > 0 ? { tokensPerSecond: usage.completionTokens / generationSeconds } : {}),
      ...(timing.chunks !== undefined ? { chunks: timing.chunks } : {}),
      ...(extra && Object.keys(extra).length > 0 ? { metadata: extra } : {}),
    })
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

  redactData(data: Record<string, unknown>): Record<string, unknown> {
    return this.redactor.data(data) as Record<string, unknown>
  }

  /** A chunk's text, masked whole when a secret ends in it, even one that began in earlier chunks. */
  #chunkText(text: string): string {
    if (text === '') return text
    const seen = this.#streamedTail + text
    this.#streamedTail = seen.slice(-64)
    return this.redactor.text(seen) === seen ? text : REDACTED
  }

  toolStart(round: number, toolCall: ToolCall, advisor: string): void {
    this.emit(round, { type: 'tool-start', toolCall: this.#toolCall(toolCall) }, advisor)
  }

  toolEnd(
    round: number,
    end: { toolCall: ToolCall; result: string; error?: string; durationMs: number; returnDirect: boolean },
    advisor: string,
  ): void {
    this.emit(
      round,
      {
        type: 'tool-end',
        toolCall: this.#toolCall(end.toolCall),
        result: this.redactor.text(end.result),
        ...(end.error !== undefined ? { error: this.redactor.text(end.error) } : {}),
        durationMs: end.durationMs,
        returnDirect: end.returnDirect,
      },
      advisor,
    )
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
    this.emit(round, { type: 'error', error: this.error(errorInfo(error)), aborted: isAbortError(error) })
  }

  end(status: RunStatus, error?: ErrorInfo): void {
    this.emit(0, {
      type: 'run-end',
      status,
      durationMs: performance.now() - this.startedAt,
      rounds: this.rounds,
      ...(this.usage ? { usage: this.usage } : {}),
      ...(this.finishReason ? { finishReason: this.finishReason } : {}),
      ...(error ? { error: this.error(error) } : {}),
    })
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
    const metadata = message.metadata
      ? { metadata: this.redactor.data(message.metadata) as Record<string, unknown> }
      : {}
    switch (message.role) {
      case 'tool':
        return {
          role: 'tool',
          responses: message.responses.map((response) => ({
            ...response,
            responseData: this.redactor.text(response.responseData),
          })),
          ...metadata,
        }
      case 'assistant':
        return {
          role: 'assistant',
          text: this.redactor.text(message.text),
          toolCalls: message.toolCalls.map((call) => this.#toolCall(call)),
          ...metadata,
        }
      default:
        return { role: message.role, text: this.redactor.text(message.text), ...metadata }
    }
  }

  #toolCall(call: ToolCall): ToolCall {
    return { id: call.id, name: this.redactor.text(call.name), arguments: this.redactor.arguments(call.arguments) }
  }

  // The tool loop sends the same options object every round; trace it once.
  #options(options: ChatOptions): TracedOptions {
    let traced = this.#tracedOptions.get(options)
    if (!traced) this.#tracedOptions.set(options, (traced = this.#traceOptions(options)))
    return traced
  }

  #traceOptions(options: ChatOptions): TracedOptions {
    const { tools, toolContext, providerOptions, ...rest } = options
    const traced = this.redactor.data(rest) as TracedOptions
    // Schemas name fields like `password`: only registered secrets are scrubbed from them, not keys.
    if (tools?.length) traced.tools = scrubSecretsDeep(tools.map((tool) => ({ ...tool.definition })))
    if (toolContext) traced.toolContextKeys = Object.keys(toolContext)
    if (providerOptions)
      traced.providerOptions = this.redactor.data(providerOptions) as TracedOptions['providerOptions']
    return traced
  }

  /** Every text of an error is masked: servers echo keys in codes and request ids too. */
  error(error: ErrorInfo): ErrorInfo {
    const masked: ErrorInfo = {
      ...error,
      name: this.redactor.text(error.name),
      message: this.redactor.text(error.message),
    }
    if (error.code !== undefined) masked.code = this.redactor.text(error.code)
    return masked
  }
}

export interface ResponseTiming {
  durationMs: number
  timeToFirstTokenMs?: number
  chunks?: number
}

function generationExtra(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!metadata) return {}
  const { finishReason: _finishReason, ...rest } = metadata
  return rest
}
