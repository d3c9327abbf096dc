import {
  isCallAdvisor,
  isStreamAdvisor,
  type Advisor,
  type AnyAdvisor,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientRequest,
  type ChatClientResponse,
  type StreamAdvisor,
  type StreamAdvisorChain,
} from './advisor'

/**
 * The ordered advisors of one call. A chain is immutable: walking it hands each advisor a view
 * positioned after itself, so `copy(this)` can re-run the rest of the chain as often as needed.
 */
export class AdvisorChain implements CallAdvisorChain, StreamAdvisorChain {
  readonly #advisors: readonly Advisor[]
  readonly #calls: readonly CallAdvisor[]
  readonly #streams: readonly StreamAdvisor[]
  readonly #callPosition: number
  readonly #streamPosition: number

  private constructor(
    advisors: readonly Advisor[],
    calls: readonly CallAdvisor[],
    streams: readonly StreamAdvisor[],
    callPosition: number,
    streamPosition: number,
  ) {
    this.#advisors = advisors
    this.#calls = calls
    this.#streams = streams
    this.#callPosition = callPosition
    this.#streamPosition = streamPosition
  }

  /** Sorts by `order` ascending; equal orders keep their insertion order. */
  static of(advisors: readonly AnyAdvisor[]): AdvisorChain {
    for (const advisor of advisors) assertAdvisor(advisor)
    return AdvisorChain.#fromSorted([...advisors].sort((a, b) => a.order - b.order))
  }

  static #fromSorted(sorted: readonly Advisor[]): AdvisorChain {
    return new AdvisorChain(sorted, sorted.filter(isCallAdvisor), sorted.filter(isStreamAdvisor), 0, 0)
  }

  get callAdvisors(): readonly CallAdvisor[] {
    return this.#calls
  }

  get streamAdvisors(): readonly StreamAdvisor[] {
    return this.#streams
  }

  nextCall(request: ChatClientRequest): Promise<ChatClientResponse> {
    const advisor = this.#calls[this.#callPosition]
    if (!advisor) return Promise.reject(new Error('No CallAdvisors available to execute'))
    const rest = new AdvisorChain(
      this.#advisors,
      this.#calls,
      this.#streams,
      this.#callPosition + 1,
      this.#streamPosition,
    )
    try {
      return advisor.adviseCall(request, rest)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  nextStream(request: ChatClientRequest): AsyncIterable<ChatClientResponse> {
    const advisor = this.#streams[this.#streamPosition]
    if (!advisor) return failingStream(new Error('No StreamAdvisors available to execute'))
    const rest = new AdvisorChain(
      this.#advisors,
      this.#calls,
      this.#streams,
      this.#callPosition,
      this.#streamPosition + 1,
    )
    return advisor.adviseStream(request, rest)
  }

  copy(after: Advisor): AdvisorChain {
    if (after == null) throw new Error('The after advisor must not be null')
    const index = this.#advisors.indexOf(after)
    if (index < 0) throw new Error(`The specified advisor is not part of the chain: ${after.name}`)
    return AdvisorChain.#fromSorted(this.#advisors.slice(index + 1))
  }
}

function assertAdvisor(advisor: Advisor): void {
  if (advisor == null || typeof advisor !== 'object') {
    throw new TypeError(`An advisor must be an object, got ${String(advisor)}`)
  }
  if (!isCallAdvisor(advisor) && !isStreamAdvisor(advisor)) {
    throw new TypeError(
      `Advisor '${String(advisor.name)}' has neither adviseCall nor adviseStream; implement CallAdvisor, StreamAdvisor or both`,
    )
  }
  if (typeof advisor.order !== 'number' || Number.isNaN(advisor.order)) {
    throw new TypeError(`Advisor '${advisor.name}' has no numeric order (got ${String(advisor.order)})`)
  }
}

function failingStream(error: Error): AsyncIterable<ChatClientResponse> {
  return {
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(error) }),
  }
}
