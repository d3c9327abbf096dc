import {
  setOption,
  AdvisorChain,
  HIGHEST_PRECEDENCE,
  LOWEST_PRECEDENCE,
  advisorOrder,
  emitChainEvent,
  providerOf,
  modelOf,
  finiteNumber,
  isTerminalAdvisor,
  newId,
  scrubSecrets,
  streamStage,
  startRoundOver,
  ChatResponseAggregator,
  thrownMessage,
  type Advisor,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChainEvent,
  type ChainEventListener,
  type ChatClientRequest,
  type ChatClientResponse,
  type ChatModel,
  type Escalation,
  type EscalationReason,
  type StreamAdvisor,
  type StreamAdvisorChain,
  isChainEventListener,
} from '../core'
import { ESCALATION_REASONS, reasonOfError, reasonOfResponse } from './escalation-reasons'
import { FALLBACK_MODEL, type FallbackAdvisor } from './markers'

export { ESCALATION_REASONS } from './escalation-reasons'

/** The app's own test of a local answer: true rejects it, and the round goes to the fallback ('rejected'). */
export type EscalationTest = (request: ChatClientRequest, response: ChatClientResponse) => boolean | Promise<boolean>

export interface EscalationAdvisorOptions {
  /** The model a failed round goes to, with the same request. */
  fallback: ChatModel
  /** The reasons that escalate (default: 'unavailable', 'context-full', 'invalid-output', 'error'). */
  reasons?: readonly EscalationReason[]
  /** No first chunk (a call: no answer) within this time escalates the round ('slow'). */
  firstTokenTimeoutMs?: number
  /** True rejects the local answer ('rejected'). */
  when?: EscalationTest
  /** Default `LOWEST_PRECEDENCE - 3000`; see `EscalationAdvisor.DEFAULT_ORDER`. */
  order?: number
}

/** Both models failed the round: the local model's cause and the fallback's. */
export class EscalationError extends Error {
  override readonly name = 'EscalationError'
  readonly escalation: Escalation
  /** Why the local model's round failed: its error, or undefined when its answer was refused. */
  readonly localCause: unknown

  /** @internal */
  constructor(escalation: Escalation, local: { detail?: string; error?: unknown }, fallbackCause: unknown) {
    const why = local.detail ? `${escalation.reason}: ${local.detail}` : escalation.reason
    super(
      scrubSecrets(
        `The round failed on '${escalation.from}' (${why}) and again on the fallback '${escalation.to}': ${thrownMessage(fallbackCause)}`,
      ),
      { cause: fallbackCause },
    )
    this.escalation = escalation
    this.localCause = local.error
  }
}

/** The key of the context that ties a validation advisor's attempts to the local try of one round. */
const ATTEMPT_KEY = 'advisor-chain.escalation-attempt'

/** The local try of a round ended in a reason to escalate: why, and the error if it threw. */
interface Verdict {
  reason: EscalationReason
  detail?: string
  error?: unknown
}

/** How long a local try had, when it ran out (the 'slow' reason). */
class FirstTokenTimeout extends Error {
  constructor(readonly ms: number) {
    super(`no first token within ${ms} ms`)
  }
}

/**
 * Local first, remote when it must: each round goes to the client's model (a model on the device),
 * and a round that fails for a reason the app chose goes again, with the same request, to the
 * fallback model, within the same turn. The response carries `metadata.escalation`; listeners (the
 * observer) hear an `escalation` chain event.
 */
export class EscalationAdvisor implements CallAdvisor, StreamAdvisor, ChainEventListener, FallbackAdvisor {
  /**
   * Inside the tool loop (HP+300) and the observer (HP+400), so each round escalates on its own and
   * the loop and the trace see one answer per round; outside validation (LP-2000) and retries
   * (LP-1), so a structured answer escalates only once the validation's attempts are spent, and a
   * retryable error only once the retries are.
   */
  static readonly DEFAULT_ORDER = LOWEST_PRECEDENCE - 3000
  static readonly DEFAULT_REASONS: readonly EscalationReason[] = [
    'unavailable',
    'context-full',
    'invalid-output',
    'error',
  ]

  readonly name = 'Escalation Advisor'
  readonly order: number
  readonly fallback: ChatModel
  /** The fallback's model id (its provider when it names none): an observer prices the device's rounds at it. */
  readonly [FALLBACK_MODEL]: string
  readonly reasons: ReadonlySet<EscalationReason>
  readonly #timeoutMs: number | undefined
  readonly #when: EscalationTest | undefined
  /** The fallback's chains, by the inner chain they copy (chains are immutable and reused). */
  readonly #fallbackChains = new WeakMap<object, AdvisorChain>()
  /** Local tries in flight, by attempt id: the validation's verdict on the last attempt, when it was invalid. */
  readonly #tries = new Map<string, { invalid?: string }>()

  constructor(options: EscalationAdvisorOptions) {
    if (
      !options?.fallback ||
      typeof options.fallback.call !== 'function' ||
      typeof options.fallback.stream !== 'function'
    )
      throw new TypeError('EscalationAdvisor needs a fallback ChatModel (an object with call and stream)')
    this.fallback = options.fallback
    this[FALLBACK_MODEL] = modelName(options.fallback)
    this.order = advisorOrder(options.order ?? EscalationAdvisor.DEFAULT_ORDER)
    const reasons = new Set(options.reasons ?? EscalationAdvisor.DEFAULT_REASONS)
    for (const reason of reasons)
      if (!ESCALATION_REASONS.includes(reason))
        throw new RangeError(
          `Unknown escalation reason ${JSON.stringify(reason)}; use one of ${ESCALATION_REASONS.map((r) => `'${r}'`).join(', ')}`,
        )
    if (options.firstTokenTimeoutMs !== undefined) {
      this.#timeoutMs = finiteNumber('firstTokenTimeoutMs', options.firstTokenTimeoutMs, 0)
      reasons.add('slow')
    }
    if (options.when !== undefined) {
      if (typeof options.when !== 'function')
        throw new TypeError('when must be a function (request, response) => boolean')
      this.#when = options.when
      reasons.add('rejected')
    }
    this.reasons = reasons
  }

  static builder(fallback: ChatModel): EscalationAdvisorBuilder {
    return new EscalationAdvisorBuilder(fallback)
  }

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    const attempt = this.#begin()
    let verdict: Verdict | undefined
    let response: ChatClientResponse | undefined
    try {
      response = await this.#callLocal(withAttempt(request, attempt), chain)
      verdict = await this.#judge(request, response, attempt, chain.callAdvisors)
    } catch (error) {
      verdict = this.#verdictOnError(error, request)
      if (!verdict) throw error
    } finally {
      this.#tries.delete(attempt)
    }
    if (!verdict) return response!
    const escalation = this.#report(verdict, response, false, request, chain.callAdvisors)
    const inner = chain.copy(this)
    const fallback = this.#fallbackChain(inner, inner.callAdvisors, chain.callAdvisors)
    try {
      return withEscalation(await fallback.nextCall(request), escalation)
    } catch (error) {
      throw request.signal?.aborted ? error : new EscalationError(escalation, verdict, error)
    }
  }

  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    const listeners = chain.streamAdvisors
    // The local try starts when the stream is first read: its id and its first-token clock.
    let attempt = ''
    let timer: FirstTokenTimer | undefined
    let escalation: Escalation | undefined
    let verdict: Verdict | undefined
    let chunks = 0
    let marked = false
    const finish = () => {
      timer?.clear()
      this.#tries.delete(attempt)
    }
    // The local answer, folded here to judge it when it ends.
    const answer = new ChatResponseAggregator()
    const escalate = (found: Verdict, local: ChatClientResponse | undefined) => {
      finish()
      verdict = found
      escalation = this.#report(found, local, chunks > 0, request, listeners)
      // The fallback's answer replaces the local one whole: nothing of the two is glued.
      startRoundOver(request.context)
      const inner = chain.copy(this)
      return { source: this.#fallbackChain(inner, inner.streamAdvisors, listeners).nextStream(request) }
    }
    return streamStage({
      open: () => {
        attempt = this.#begin()
        timer = this.#firstTokenTimer(request.signal)
        // The chain itself, not a copy: the advisors inside report their events (validation attempts) to all.
        return chain.nextStream(withAttempt(request, attempt, timer?.signal))
      },
      chunk: (chunk: ChatClientResponse) => {
        if (!escalation) {
          if (chunks++ === 0) timer?.clear()
          if (chunk.chatResponse) answer.add(chunk.chatResponse)
          return chunk
        }
        if (marked || !chunk.chatResponse) return chunk
        // The fallback's first chunk says who answered, and why (later metadata never removes it).
        marked = true
        return withEscalation(chunk, escalation)
      },
      end: async () => {
        if (escalation) return
        const local = { chatResponse: answer.chunkCount > 0 ? answer.result() : null, context: request.context }
        const found = await this.#judge(request, local, attempt, listeners)
        if (!found) return finish()
        return escalate(found, local)
      },
      fail: (error) => {
        if (escalation) throw request.signal?.aborted ? error : new EscalationError(escalation, verdict!, error)
        const found = this.#verdictOnError(timer?.expired ?? error, request)
        if (!found) {
          finish()
          throw error
        }
        return escalate(found, undefined)
      },
      stop: finish,
    })
  }

  onChainEvent(event: ChainEvent, context: Readonly<Record<string, unknown>>): void {
    if (event.type !== 'validation-attempt') return
    const attempt = context[ATTEMPT_KEY]
    const tried = typeof attempt === 'string' ? this.#tries.get(attempt) : undefined
    if (!tried) return
    // The validation's last word on the local answer: invalid, with no attempt left.
    tried.invalid = !event.valid && event.retryWith === undefined ? event.errors.join('; ') : undefined
  }

  #begin(): string {
    const attempt = newId()
    this.#tries.set(attempt, {})
    return attempt
  }

  /**
   * The local call, given up on (and aborted) when it takes longer than the first-token timeout.
   * The chain itself, not a copy: the advisors inside report their events (validation attempts) to all.
   */
  #callLocal(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    const timer = this.#firstTokenTimer(request.signal)
    if (!timer) return chain.nextCall(request)
    return new Promise<ChatClientResponse>((resolve, reject) => {
      timer.onExpiry = reject
      chain
        .nextCall({ ...request, signal: timer.signal })
        .then(resolve, (error: unknown) => reject(timer.expired ?? error))
    }).finally(() => timer.clear())
  }

  /** A reason to escalate the local answer, if any, among the reasons the app chose. */
  async #judge(
    request: ChatClientRequest,
    response: ChatClientResponse,
    attempt: string,
    listeners: readonly Advisor[],
  ): Promise<Verdict | undefined> {
    const invalid = this.#tries.get(attempt)?.invalid
    if (invalid !== undefined && this.reasons.has('invalid-output'))
      return { reason: 'invalid-output', detail: `the answer was still invalid after validation: ${invalid}` }
    const found = reasonOfResponse(response.chatResponse)
    if (found && this.reasons.has(found.reason)) return found
    if (!this.#when) return undefined
    try {
      if ((await this.#when(request, response)) === true)
        return { reason: 'rejected', detail: 'when() refused the answer' }
    } catch (error) {
      // The app's test failed, not the model: the answer stands, and the trace says why it was not judged.
      emitChainEvent(
        listeners,
        {
          type: 'note',
          advisor: this.name,
          level: 'warning',
          message: `The escalation test when() threw, so the local answer was kept: ${thrownMessage(error)}`,
        },
        request.context,
        this.name,
      )
    }
    return undefined
  }

  #verdictOnError(error: unknown, request: ChatClientRequest): Verdict | undefined {
    if (request.signal?.aborted) return undefined
    const reason = error instanceof FirstTokenTimeout ? 'slow' : reasonOfError(error)
    if (!reason || !this.reasons.has(reason)) return undefined
    return { reason, detail: thrownMessage(error), error }
  }

  #report(
    verdict: Verdict,
    local: ChatClientResponse | undefined,
    restarted: boolean,
    request: ChatClientRequest,
    listeners: readonly Advisor[],
  ): Escalation {
    const answered = local?.chatResponse?.metadata.model
    const device = modelOf(listeners)
    const escalation: Escalation = {
      from: typeof answered === 'string' ? answered : device ? modelName(device) : (providerOf(listeners) ?? 'local'),
      to: this[FALLBACK_MODEL],
      reason: verdict.reason,
    }
    const event: ChainEvent = { type: 'escalation', ...escalation, restarted }
    if (verdict.detail) event.detail = scrubSecrets(verdict.detail)
    emitChainEvent(listeners, event, request.context, this.name)
    return escalation
  }

  /**
   * The rest of the chain as it is, ending in the fallback model instead of the client's, with a
   * relay first that passes its advisors' events (validation attempts) on to the listeners outside.
   */
  #fallbackChain(inner: object, rest: readonly Advisor[], outside: readonly Advisor[]): AdvisorChain {
    let chain = this.#fallbackChains.get(inner)
    if (chain) return chain
    const terminal = rest.at(-1)
    if (!terminal || !isTerminalAdvisor(terminal))
      throw new Error(`${this.name} must sit before the model call in the chain; nothing calls a model after it`)
    const relay = eventRelay(outside.filter((advisor) => isChainEventListener(advisor) && !rest.includes(advisor)))
    chain = AdvisorChain.of([relay, ...rest.slice(0, -1), terminal.withModel(this.fallback)])
    this.#fallbackChains.set(inner, chain)
    return chain
  }

  /** A timer that aborts the local try when no first token came in time; undefined without a timeout. */
  #firstTokenTimer(signal: AbortSignal | undefined): FirstTokenTimer | undefined {
    const ms = this.#timeoutMs
    return ms === undefined ? undefined : new FirstTokenTimer(ms, signal)
  }
}

/** Aborts a local try after `ms`, and with the caller's signal. */
class FirstTokenTimer {
  readonly #controller = new AbortController()
  readonly #timer: ReturnType<typeof setTimeout>
  readonly #caller: AbortSignal | undefined
  expired: FirstTokenTimeout | undefined
  onExpiry: ((error: FirstTokenTimeout) => void) | undefined

  constructor(ms: number, caller: AbortSignal | undefined) {
    this.#caller = caller
    caller?.addEventListener('abort', this.#follow, { once: true })
    if (caller?.aborted) this.#follow()
    this.#timer = setTimeout(() => {
      this.expired = new FirstTokenTimeout(ms)
      this.onExpiry?.(this.expired)
      this.#controller.abort(this.expired)
    }, ms)
  }

  get signal(): AbortSignal {
    return this.#controller.signal
  }

  clear(): void {
    clearTimeout(this.#timer)
    this.#caller?.removeEventListener('abort', this.#follow)
  }

  readonly #follow = () => this.#controller.abort(this.#caller?.reason)
}

export class EscalationAdvisorBuilder {
  readonly #options: EscalationAdvisorOptions

  constructor(fallback: ChatModel) {
    this.#options = { fallback }
  }

  /** The reasons that escalate; replaces the default list. */
  on(...reasons: EscalationReason[]): this {
    this.#options.reasons = reasons
    return this
  }

  /** No first token within `ms` escalates the round (adds the reason 'slow'). */
  firstTokenTimeoutMs(ms: number): this {
    return setOption(this, this.#options, 'firstTokenTimeoutMs', ms)
  }

  /** True rejects the local answer (adds the reason 'rejected'). */
  when(test: EscalationTest): this {
    return setOption(this, this.#options, 'when', test)
  }

  order(order: number): this {
    return setOption(this, this.#options, 'order', order)
  }

  build(): EscalationAdvisor {
    return new EscalationAdvisor({ ...this.#options })
  }
}

/** The request of the local try: tagged, so the validation's verdicts on it reach the advisor. */
function withAttempt(request: ChatClientRequest, attempt: string, signal?: AbortSignal): ChatClientRequest {
  const tagged: ChatClientRequest = { ...request, context: { ...request.context, [ATTEMPT_KEY]: attempt } }
  if (signal) tagged.signal = signal
  return tagged
}

function withEscalation(response: ChatClientResponse, escalation: Escalation): ChatClientResponse {
  const chatResponse = response.chatResponse
  if (!chatResponse) return response
  return { ...response, chatResponse: { ...chatResponse, metadata: { ...chatResponse.metadata, escalation } } }
}

/** A model's name for a trace: its model id when it has one, else its provider. */
function modelName(model: ChatModel): string {
  const id = (model as { model?: unknown }).model
  return typeof id === 'string' && id !== '' ? id : model.provider
}

/** An advisor that passes the fallback chain's events on to `listeners`, outside that chain. */
function eventRelay(listeners: readonly Advisor[]): CallAdvisor & StreamAdvisor & ChainEventListener {
  return {
    name: 'Escalation Relay',
    order: HIGHEST_PRECEDENCE,
    adviseCall: (request, chain) => chain.nextCall(request),
    adviseStream: (request, chain) => chain.nextStream(request),
    // The fallback's round belongs to the caller's run: the fallback chain's own start and end are not passed on.
    onChainEvent: (event, context, source) => {
      if (event.type !== 'run-start' && event.type !== 'run-end') emitChainEvent(listeners, event, context, source)
    },
  }
}
