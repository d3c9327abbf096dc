import {
  HIGHEST_PRECEDENCE,
  type Advisor,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
  ROUND_KEY,
  RUN_ID_KEY,
  newId,
  type ChainEvent,
  type ChainEventListener,
  type ErrorInfo,
  isAbortError,
  providerOf,
  now,
} from '../../core'
import { isToolAdvisor } from '../markers'
import {
  type RunStatus,
  type TraceEventBody,
  type TraceSink,
  type TracedAdvisor,
  withPerformanceTrack,
  Redactor,
  type RedactionRules,
} from '../../trace'
import { observedStream, type StreamObservation } from './observed-stream'
import { RunRecorder } from './run-recorder'

export interface ObserverAdvisorOptions {
  sink: TraceSink
  /** Default `HIGHEST_PRECEDENCE + 400`: inside the tool loop, so it sees every round. */
  order?: number
  name?: string
  /** Extra masking on top of the built-in rules (API keys, Authorization and similar). */
  redact?: RedactionRules
  /** Record every stream chunk as a `model-chunk` event (default true). */
  chunks?: boolean
  /** Mirror rounds, model calls and tool calls on Chrome's Performance panel, keeping no entry (default: in a browser page). */
  performanceTrack?: boolean
}

type Placement = 'inside-loop' | 'outside-loop' | 'no-loop'

const ENDED_RUNS_KEPT = 32

/**
 * Turns every run into trace events for a sink: requests as sent, chunks, responses, tool
 * executions, validation attempts, retries, errors, timing and usage. Inside the tool loop (the
 * default order) it sees every round; tool executions reach it as chain events.
 */
export class ObserverAdvisor implements CallAdvisor, StreamAdvisor, ChainEventListener {
  static readonly DEFAULT_ORDER = HIGHEST_PRECEDENCE + 400

  readonly name: string
  readonly order: number
  readonly #sink: TraceSink
  readonly #redactor: Redactor
  readonly #chunks: boolean
  readonly #runs = new Map<string, { recorder: RunRecorder; placement: Placement }>()
  readonly #ended = new Map<string, { recorder: RunRecorder; placement: Placement }>()
  /** Events of runs that have not started yet (an advisor outside the loop reports first). */
  readonly #early = new Map<string, Array<[ChainEvent, Readonly<Record<string, unknown>>, string]>>()
  #seq = 0
  readonly #nextSeq = () => this.#seq++

  constructor(options: ObserverAdvisorOptions) {
    if (!options?.sink || typeof options.sink.emit !== 'function') {
      throw new TypeError('ObserverAdvisor needs a sink: an object with emit(event), e.g. a devtools store')
    }
    this.name = options.name ?? 'Observer Advisor'
    this.order = options.order ?? ObserverAdvisor.DEFAULT_ORDER
    const track = options.performanceTrack ?? typeof document !== 'undefined'
    this.#sink = track ? withPerformanceTrack(options.sink) : options.sink
    this.#redactor = new Redactor(options.redact)
    this.#chunks = options.chunks ?? true
  }

  adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    try {
      const { run, round, placement, forwarded } = this.#enter(request, chain.callAdvisors, 'call')
      if (placement === 'outside-loop') return this.#outside(run, () => chain.nextCall(forwarded))
      return this.#round(run, round, placement, forwarded, chain)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /** One round of a call, recorded. Reactions on its promise rather than an async function: no suspended frame per round. */
  #round(
    run: RunRecorder,
    round: number,
    placement: Placement,
    forwarded: ChatClientRequest,
    chain: CallAdvisorChain,
  ): Promise<ChatClientResponse> {
    const started = now()
    run.roundStart(round, this.name, started)
    run.request(round, forwarded.prompt.messages, forwarded.prompt.options, started, providerOf(chain.callAdvisors))
    let next: Promise<ChatClientResponse>
    try {
      next = chain.nextCall(forwarded)
    } catch (error) {
      this.#roundFailed(run, round, started, error, placement)
      return Promise.reject(error)
    }
    return next.then(
      (response) => this.#answered(run, round, placement, response, started, now()),
      (error: unknown) => {
        this.#roundFailed(run, round, started, error, placement)
        throw error
      },
    )
  }

  #answered(
    run: RunRecorder,
    round: number,
    placement: Placement,
    response: ChatClientResponse,
    started: number,
    ended: number,
  ): ChatClientResponse {
    run.response(round, response.chatResponse, { durationMs: ended - started, at: ended })
    run.roundEnd(round, 'ok', ended - started, this.name, ended)
    if (placement === 'no-loop') this.#end(run, 'ok')
    return response
  }

  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    const { run, round, placement, forwarded } = this.#enter(request, chain.streamAdvisors, 'stream')
    const perRound = placement !== 'outside-loop'
    const watch: StreamObservation = {
      begin: (started) => {
        if (!perRound) return
        run.roundStart(round, this.name, started)
        run.request(
          round,
          forwarded.prompt.messages,
          forwarded.prompt.options,
          started,
          providerOf(chain.streamAdvisors),
        )
      },
      chunk: (index, chunk) => {
        if (perRound && this.#chunks) run.chunks.chunk(round, index, chunk)
      },
      finish: (status, response, timing, error) => {
        if (perRound) {
          if (status === 'ok') run.response(round, response, timing)
          else run.failure(round, error)
          run.roundEnd(round, status, timing.durationMs, this.name, timing.at)
        } else {
          run.outcome(response)
          if (status !== 'ok') run.failure(0, error)
        }
        // Inside the loop the run ends with the loop (tool-loop-end), not with one round.
        if (placement !== 'inside-loop') this.#end(run, status)
      },
    }
    return observedStream(() => chain.nextStream(forwarded), watch)
  }

  onChainEvent(event: ChainEvent, context: Readonly<Record<string, unknown>>, source: string): void {
    const runId = context[RUN_ID_KEY]
    if (typeof runId !== 'string') return
    if (event.type === 'tool-loop-start') {
      if (this.#runs.has(runId)) return
      const recorder = this.#recorder(runId)
      const placement: Placement = this.order > event.loopOrder ? 'inside-loop' : 'outside-loop'
      this.#runs.set(runId, { recorder, placement })
      recorder.start(event.mode, placement, layout(event.advisors, event.loopOrder), context)
      this.#flushEarly(runId)
      return
    }
    const entry = this.#runs.get(runId) ?? this.#ended.get(runId)
    if (!entry) return this.#holdEarly(runId, event, context, source)
    const run = entry.recorder
    switch (event.type) {
      case 'tool-execution-start':
        return run.toolStart(event.round, event, source, event.at)
      case 'tool-execution-end':
        return run.toolEnd(event.round, event, source)
      case 'tool-loop-end':
        run.emit(0, { type: 'tool-loop-end', reason: event.reason, rounds: event.rounds }, source)
        if (event.reason === 'returnDirect' || event.reason === 'toolCallLimitExceeded') run.finishReason = event.reason
        if (entry.placement === 'inside-loop') {
          const status: RunStatus = event.reason === 'aborted' ? 'aborted' : event.reason === 'error' ? 'error' : 'ok'
          this.#end(run, status, event.error)
        }
        return
      case 'retry':
        return run.emit(
          numberIn(context[ROUND_KEY]),
          { type: 'retry', attempt: event.attempt, error: run.error(event.error), delayMs: event.delayMs },
          source,
        )
      case 'validation-attempt':
        return run.validation(numberIn(context[ROUND_KEY]), event, source)
      case 'approval':
        return run.approval(event, source)
      case 'evaluation':
        return run.evaluation(event, source)
      case 'note':
        return run.note(numberIn(context[ROUND_KEY]), event, source)
      case 'retrieval':
        // Outside the loop the documents go into the first round's request: that round used them.
        return run.emit(numberIn(context[ROUND_KEY]) || 1, run.redactor.data(event) as TraceEventBody, source)
    }
  }

  /** Finds or starts the run of a request, and the request to forward (with the run id). */
  #enter(request: ChatClientRequest, advisors: readonly Advisor[], mode: 'call' | 'stream') {
    const round = request.context[ROUND_KEY]
    const existing = request.context[RUN_ID_KEY]
    if (typeof round === 'number' && typeof existing === 'string') {
      let entry = this.#runs.get(existing)
      if (!entry) {
        // The loop started before this observer could hear it (e.g. it was not a listener then).
        entry = { recorder: this.#recorder(existing), placement: 'inside-loop' }
        this.#runs.set(existing, entry)
        entry.recorder.start(mode, 'inside-loop', [], request.context)
      }
      return { run: entry.recorder, round, placement: entry.placement, forwarded: request }
    }
    const runId = typeof existing === 'string' ? existing : newId()
    const toolAdvisor = advisors.find(isToolAdvisor)
    const placement: Placement = toolAdvisor && toolAdvisor.order > this.order ? 'outside-loop' : 'no-loop'
    const recorder = this.#recorder(runId)
    this.#runs.set(runId, { recorder, placement })
    const loopOrder = toolAdvisor?.order ?? Number.POSITIVE_INFINITY
    recorder.start(mode, placement, layout(advisors, loopOrder), request.context)
    this.#flushEarly(runId)
    const forwarded =
      existing === runId ? request : { ...request, context: { ...request.context, [RUN_ID_KEY]: runId } }
    return { run: recorder, round: placement === 'no-loop' ? 1 : 0, placement, forwarded }
  }

  async #outside(run: RunRecorder, next: () => Promise<ChatClientResponse>): Promise<ChatClientResponse> {
    try {
      const response = await next()
      run.outcome(response.chatResponse)
      this.#end(run, 'ok')
      return response
    } catch (error) {
      run.failure(0, error)
      this.#end(run, isAbortError(error) ? 'aborted' : 'error')
      throw error
    }
  }

  #roundFailed(run: RunRecorder, round: number, started: number, error: unknown, placement: Placement): void {
    const status: RunStatus = isAbortError(error) ? 'aborted' : 'error'
    run.failure(round, error)
    run.roundEnd(round, status, now() - started, this.name)
    if (placement === 'no-loop') this.#end(run, status)
  }

  #end(run: RunRecorder, status: RunStatus, error?: ErrorInfo): void {
    const entry = this.#runs.get(run.runId)
    if (!entry) return
    this.#runs.delete(run.runId)
    run.end(status, error)
    // An advisor outside the loop (an evaluation) may still report on the run after it ended.
    this.#ended.set(run.runId, entry)
    if (this.#ended.size > ENDED_RUNS_KEPT) this.#ended.delete(this.#ended.keys().next().value!)
  }

  #holdEarly(runId: string, event: ChainEvent, context: Readonly<Record<string, unknown>>, source: string): void {
    let held = this.#early.get(runId)
    if (!held) {
      this.#early.set(runId, (held = []))
      if (this.#early.size > ENDED_RUNS_KEPT) this.#early.delete(this.#early.keys().next().value!)
    }
    if (held.length < 50) held.push([event, context, source])
  }

  #flushEarly(runId: string): void {
    const held = this.#early.get(runId)
    if (!held) return
    this.#early.delete(runId)
    for (const [event, context, source] of held) this.onChainEvent(event, context, source)
  }

  #recorder(runId: string): RunRecorder {
    return new RunRecorder(runId, this.#sink, this.#redactor, this.#nextSeq, this.name)
  }
}

function layout(advisors: ReadonlyArray<{ name: string; order: number }>, loopOrder: number): TracedAdvisor[] {
  return advisors.map(({ name, order }) => ({
    name,
    order,
    placement: order < loopOrder ? 'outside-loop' : order === loopOrder ? 'tool-loop' : 'inside-loop',
  }))
}

function numberIn(value: unknown): number {
  return typeof value === 'number' ? value : 0
}
