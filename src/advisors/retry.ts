import {
  setOption,
  delay,
  LOWEST_PRECEDENCE,
  advisorOrder,
  wholeNumber,
  type Advisor,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
  emitChainEvent,
  errorInfo,
  finiteNumber,
  streamStage,
} from '../core'

export interface RetryOptions {
  /** Attempts in all, the first included (default 3). */
  maxAttempts?: number
  /** The wait before the first retry (default 500 ms); it grows by `multiplier` (default 2) up to `maxDelayMs` (default 8 s). */
  initialDelayMs?: number
  multiplier?: number
  maxDelayMs?: number
  /** The most time spent waiting over all retries (default 30 s); a wait that would pass it is not made. */
  maxTotalDelayMs?: number
  /** How much of each wait is random, from 0 (none) to 1 (default: full jitter). */
  jitter?: number
  /** Default `LOWEST_PRECEDENCE - 1`: just outside the model call, so one model call is retried, not the tool loop. */
  advisorOrder?: number
  /** For tests: the random source and the wait. */
  random?: () => number
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>
}

/**
 * Retries a model call that failed with a retryable error (`error.retryable === true`: rate limits,
 * overloads, server errors, dropped connections), with exponential backoff and jitter, honouring
 * the server's `retryAfterMs`. A stream is retried only if it failed before its first chunk.
 */
export class RetryAdvisor implements CallAdvisor, StreamAdvisor {
  static readonly DEFAULT_ORDER = LOWEST_PRECEDENCE - 1

  readonly name = 'Retry Advisor'
  readonly order: number
  readonly #options: Required<Omit<RetryOptions, 'advisorOrder'>>

  constructor(options: RetryOptions = {}) {
    this.order = advisorOrder(options.advisorOrder ?? RetryAdvisor.DEFAULT_ORDER)
    this.#options = {
      maxAttempts: wholeNumber('maxAttempts', options.maxAttempts ?? 3, 1),
      initialDelayMs: finiteNumber('initialDelayMs', options.initialDelayMs ?? 500, 0),
      multiplier: finiteNumber('multiplier', options.multiplier ?? 2, 1),
      maxDelayMs: finiteNumber('maxDelayMs', options.maxDelayMs ?? 8_000, 0),
      maxTotalDelayMs: finiteNumber('maxTotalDelayMs', options.maxTotalDelayMs ?? 30_000, 0),
      jitter: finiteNumber('jitter', options.jitter ?? 1, 0, 1),
      random: options.random ?? Math.random,
      sleep: options.sleep ?? delay,
    }
  }

  static builder(): RetryAdvisorBuilder {
    return new RetryAdvisorBuilder()
  }

  async adviseCall(request: ChatClientRequest, chain: CallAdvisorChain): Promise<ChatClientResponse> {
    let waited = 0
    for (let attempt = 1; ; attempt++) {
      try {
        return await chain.copy(this).nextCall(request)
      } catch (error) {
        waited += await this.#beforeRetry(error, attempt, waited, request, chain.callAdvisors)
      }
    }
  }

  adviseStream(request: ChatClientRequest, chain: StreamAdvisorChain): AsyncIterable<ChatClientResponse> {
    let waited = 0
    let attempt = 1
    let started = false
    const open = () => chain.copy(this).nextStream(request)
    return streamStage({
      open,
      chunk(chunk: ChatClientResponse) {
        started = true
        return chunk
      },
      fail: async (error) => {
        // Once a chunk has reached the caller, a failure is the caller's to see: no retry.
        if (started) throw error
        waited += await this.#beforeRetry(error, attempt, waited, request, chain.streamAdvisors)
        attempt++
        return { source: open() }
      },
    })
  }

  /** Waits before the next attempt, or rethrows when the error is not retryable or the budget is spent. */
  async #beforeRetry(
    error: unknown,
    attempt: number,
    waited: number,
    request: ChatClientRequest,
    listeners: readonly Advisor[],
  ): Promise<number> {
    const { maxAttempts, maxTotalDelayMs, sleep } = this.#options
    if (request.signal?.aborted || !isRetryable(error) || attempt >= maxAttempts) throw error
    const wait = this.delayBefore(attempt + 1, retryAfterOf(error))
    if (waited + wait > maxTotalDelayMs) throw error
    emitChainEvent(
      listeners,
      { type: 'retry', attempt: attempt + 1, error: errorInfo(error), delayMs: wait },
      request.context,
      this.name,
    )
    await sleep(wait, request.signal)
    return wait
  }

  /** The wait before `attempt` (2 for the first retry): exponential, jittered, never below the server's retry-after. */
  delayBefore(attempt: number, retryAfterMs?: number): number {
    const { initialDelayMs, multiplier, maxDelayMs, jitter, random } = this.#options
    const exponential = Math.min(maxDelayMs, initialDelayMs * multiplier ** (attempt - 2))
    const jittered = exponential * (1 - jitter * random())
    return Math.round(Math.max(jittered, retryAfterMs ?? 0))
  }
}

export class RetryAdvisorBuilder {
  readonly #options: RetryOptions = {}

  maxAttempts(attempts: number): this {
    return setOption(this, this.#options, 'maxAttempts', attempts)
  }

  initialDelayMs(ms: number): this {
    return setOption(this, this.#options, 'initialDelayMs', ms)
  }

  multiplier(multiplier: number): this {
    return setOption(this, this.#options, 'multiplier', multiplier)
  }

  maxDelayMs(ms: number): this {
    return setOption(this, this.#options, 'maxDelayMs', ms)
  }

  maxTotalDelayMs(ms: number): this {
    return setOption(this, this.#options, 'maxTotalDelayMs', ms)
  }

  jitter(jitter: number): this {
    return setOption(this, this.#options, 'jitter', jitter)
  }

  advisorOrder(order: number): this {
    return setOption(this, this.#options, 'advisorOrder', order)
  }

  random(random: () => number): this {
    return setOption(this, this.#options, 'random', random)
  }

  sleep(sleep: (ms: number, signal?: AbortSignal) => Promise<void>): this {
    return setOption(this, this.#options, 'sleep', sleep)
  }

  build(): RetryAdvisor {
    return new RetryAdvisor({ ...this.#options })
  }
}

function isRetryable(error: unknown): boolean {
  return (error as { retryable?: unknown } | null)?.retryable === true
}

function retryAfterOf(error: unknown): number | undefined {
  const value = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs
  return typeof value === 'number' ? value : undefined
}
