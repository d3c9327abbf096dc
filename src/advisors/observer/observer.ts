import {
  HIGHEST_PRECEDENCE,
  type Advisor,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
  ROUND_ANSWER_KEY,
  ROUND_KEY,
  RUN_ID_KEY,
  contextValue,
  type ChainEvent,
  type ChainEventListener,
  type ErrorInfo,
  isAbortError,
  providerOf,
  now,
} from '../../core'
import { fallbackModelOf } from '../markers'
import {
  type RunStatus,
  type TraceSink,
  withPerformanceTrack,
  Redactor,
  type RedactionRules,
  type Pricing,
  checkedPricing,
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
  /** Mirror rounds, model calls and tool calls on Chrome's Performance panel, keeping no entry (default: in a page of a development build). */
  performanceTrack?: boolean
  /**
   * Prices by model id, per million tokens: each model response in the trace carries its `costUsd`
   * (and, when an EscalationAdvisor names a priced fallback, `fallbackCostUsd`). No price, no cost.
   */
  pricing?: Pricing
}

/** The bundler's build mode: Vite, Next.js, webpack and esbuild write `process.env.NODE_ENV` into the code they build. */
declare const process: { env: { NODE_ENV?: string } }

/**
 * Whether an observer draws the track when its options do not say: in a page of a development
 * build, as React draws its own Performance tracks only in development. A production build marks
 * nothing (a page pays for a track only while someone profiles it); a page loaded without a
 * bundler, which has no `process`, counts as development.
 */
function performanceTrackByDefault(): boolean {
  if (typeof document === 'undefined') return false
  try {
    return process.env.NODE_ENV !== 'production'
  } catch {
    return true
  }
}

type Placement = 'inside-loop' | 'outside-loop' | 'no-loop'

const ENDED_RUNS_KEPT = 32

/** A run this observer records: where it sits in it, and (outside any loop) how many calls passed it. */
interface ObservedRun {
  readonly recorder: RunRecorder
  readonly placement: Placement
  calls: number
}

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
  readonly #pricing: Pricing | undefined
  readonly #runs = new Map<string, ObservedRun>()
  readonly #ended = new Map<string, ObservedRun>()
  #seq = 0
  readonly #nextSeq = () => this.#seq++

  constructor(options: ObserverAdvisorOptions) {
    if (!options?.sink || typeof options.sink.emit !== 'function') {
      throw new TypeError('ObserverAdvisor needs a sink: an object with emit(event), e.g. a devtools store')
    }
    this.name = options.name ?? 'Observer Advisor'
    this.order = options.order ?? ObserverAdvisor.DEFAULT_ORDER
    const track = options.performanceTrack ?? performanceTrackByDefault()
    this.#sink = track ? withPerformanceTrack(options.sink) : options.sink
    this.#redactor = new Redactor(options.redact)
    this.#chunks = options.chunks ?? true
    if (options.pricing !== undefined) this.#pricing = checkedPricing(options.pricing)
  }

  adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    let watch: StreamObservation
    const started = now()
    try {
      watch = this.#watch(request, chain.callAdvisors)
      watch.begin(started)
    } catch (error) {
      return Promise.reject(error)
    }
    let next: Promise<ChatClientResponse>
    try {
      next = chain.nextCall(request)
    } catch (error) {
      next = Promise.reject(error)
    }
    return next.then(
      (response) => {
        const ended = now()
        watch.finish('ok', response.chatResponse, { durationMs: ended - started, at: ended })
        return response
      },
      (error: unknown) => {
        const ended = now()
        watch.finish(isAbortError(error) ? 'aborted' : 'error', null, { durationMs: ended - started, at: ended }, error)
        throw error
      },
    )
  }

  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    const watch = this.#watch(request, chain.streamAdvisors)
    return observedStream(() => chain.nextStream(request), watch, contextValue(request.context, ROUND_ANSWER_KEY))
  }

  /**
   * How a call or stream of a request is recorded: inside the loop (or with no loop) as a round of
   * the run; outside it, only how the run ended.
   */
  #watch(request: ChatClientRequest, advisors: readonly Advisor[]): StreamObservation {
    const entry = this.#enter(request)
    const run = entry.recorder
    const round = roundOf(request, entry)
    const perRound = entry.placement !== 'outside-loop'
    return {
      begin: (started) => {
        if (!perRound) return
        // The request it sends, and the fallback model its answer is priced at.
        if (this.#pricing) run.fallbackModel ??= fallbackModelOf(advisors)
        run.roundStart(round, this.name, started)
        run.request(round, request.prompt.messages, request.prompt.options, started, providerOf(advisors))
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
      },
    }
  }

  onChainEvent(event: ChainEvent, context: Readonly<Record<string, unknown>>, source: string): void {
    const runId = context[RUN_ID_KEY]
    if (typeof runId !== 'string') return
    if (event.type === 'run-start') return this.#start(runId, event, context)
    const entry = this.#runs.get(runId) ?? this.#ended.get(runId)
    if (!entry) return
    const run = entry.recorder
    // An advisor's report (validation, evaluation, escalation, compaction, note, retrieval) goes into the trace
    // as it came, every text in it masked.
    const round = numberIn(context[ROUND_KEY])
    switch (event.type) {
      case 'tool-execution-start':
        return run.toolStart(event.round, event, source, event.at)
      case 'tool-execution-end':
        return run.toolEnd(event.round, event, source)
      case 'tool-loop-end':
        run.emit(0, { type: 'tool-loop-end', reason: event.reason, rounds: event.rounds }, source)
        if (event.reason === 'returnDirect' || event.reason === 'toolCallLimitExceeded') run.finishReason = event.reason
        return
      case 'run-end':
        return this.#end(run, event.status, event.error)
      case 'retry':
        return run.report(round, event, source)
      case 'approval':
        return run.approval(event, source)
      case 'evaluation':
        return run.report(0, event, source)
      case 'validation-attempt':
        return run.report(round, { ...event, type: 'validation' }, source)
      case 'note': {
        const { advisor: _advisor, ...note } = event
        return run.report(round, note, source)
      }
      // Outside the loop these belong to the first round: documents go into its request.
      case 'escalation':
      case 'compaction':
      case 'retrieval':
        return run.report(round || 1, event, source)
    }
  }

  /** The run the chain started, as its listeners heard of it: where this observer sits in it, and its trace. */
  #start(runId: string, event: ChainEvent & { type: 'run-start' }, context: Readonly<Record<string, unknown>>): void {
    const own = event.advisors.find(({ name, order }) => name === this.name && order === this.order)?.placement
    const hasLoop = event.advisors.some(({ placement }) => placement === 'tool-loop')
    const placement: Placement = !hasLoop ? 'no-loop' : own === 'outside-loop' ? 'outside-loop' : 'inside-loop'
    const recorder = new RunRecorder(runId, this.#sink, this.#redactor, this.#nextSeq, this.name, this.#pricing)
    this.#runs.set(runId, { recorder, placement, calls: 0 })
    recorder.start(event.mode, placement, [...event.advisors], context)
  }

  /** The run of a request. */
  #enter(request: ChatClientRequest): ObservedRun {
    const runId = request.context[RUN_ID_KEY]
    const entry = typeof runId === 'string' ? this.#runs.get(runId) : undefined
    if (!entry) {
      throw new Error(
        `ObserverAdvisor '${this.name}' got a request of a run it did not see start (run id ${String(runId)}): put the observer in the chain's advisors, which start the run.`,
      )
    }
    return entry
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
}

/** A request's round: the loop's round inside it, else each call through this observer a round. */
function roundOf(request: ChatClientRequest, entry: ObservedRun): number {
  const round = request.context[ROUND_KEY]
  return typeof round === 'number' ? round : entry.placement === 'no-loop' ? ++entry.calls : 0
}

function numberIn(value: unknown): number {
  return typeof value === 'number' ? value : 0
}
