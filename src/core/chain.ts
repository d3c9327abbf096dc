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
import { callRun, runPlan, streamRun, type RunPlan } from './run'
import { streamStage } from './stream-stage'
import { isTerminalAdvisor } from './terminal'

/**
 * The ordered advisors of one call. A chain is immutable: walking it hands each advisor a view
 * positioned after itself, so `copy(this)` can re-run the rest of the chain as often as needed.
 * The chain owns the run: entering it at its start (not a view, not a copy) starts one.
 */
export class AdvisorChain implements CallAdvisorChain, StreamAdvisorChain {
  readonly #shared: SharedChain
  readonly #callPosition: number
  readonly #streamPosition: number
  /** The views handed to this position's advisor: made on first walk, then reused (chains are immutable). */
  #callView: AdvisorChain | undefined
  #streamView: AdvisorChain | undefined

  private constructor(shared: SharedChain, callPosition: number, streamPosition: number) {
    this.#shared = shared
    this.#callPosition = callPosition
    this.#streamPosition = streamPosition
  }

  /** Sorts by `order` ascending; equal orders keep their insertion order; the model-calling terminals go last. */
  static of(advisors: readonly AnyAdvisor[]): AdvisorChain {
    for (const advisor of advisors) assertAdvisor(advisor)
    const sorted = [...advisors].sort(byOrder)
    return AdvisorChain.#fromSorted(sorted, runPlan(sorted))
  }

  static #fromSorted(sorted: readonly Advisor[], run?: RunPlan): AdvisorChain {
    const shared: SharedChain = {
      run,
      advisors: sorted,
      calls: sorted.filter(isCallAdvisor),
      streams: sorted.filter(isStreamAdvisor),
      copies: new Map(),
    }
    return new AdvisorChain(shared, 0, 0)
  }

  get callAdvisors(): readonly CallAdvisor[] {
    return this.#shared.calls
  }

  get streamAdvisors(): readonly StreamAdvisor[] {
    return this.#shared.streams
  }

  nextCall(request: ChatClientRequest): Promise<ChatClientResponse> {
    const advisor = this.#shared.calls[this.#callPosition]
    if (!advisor) return Promise.reject(new Error('No CallAdvisors available to execute'))
    const view = (this.#callView ??= new AdvisorChain(this.#shared, this.#callPosition + 1, this.#streamPosition))
    const run = this.#startsRun()
    if (run) return callRun(run, request, (started) => advise(advisor, started, view))
    return advise(advisor, request, view)
  }

  nextStream(request: ChatClientRequest): AsyncIterable<ChatClientResponse> {
    const advisor = this.#shared.streams[this.#streamPosition]
    if (!advisor) return failingStream(new Error('No StreamAdvisors available to execute'))
    const view = (this.#streamView ??= new AdvisorChain(this.#shared, this.#callPosition, this.#streamPosition + 1))
    const run = this.#startsRun()
    if (run) return streamRun(run, request, (started) => advisor.adviseStream(started, view))
    return advisor.adviseStream(request, view)
  }

  /** The run plan when this is the chain's start, where a run begins; undefined in a view or a copy. */
  #startsRun(): RunPlan | undefined {
    return this.#callPosition === 0 && this.#streamPosition === 0 ? this.#shared.run : undefined
  }

  // The rest of the chain after `after`, made once per advisor and reused.
  copy(after: Advisor): AdvisorChain {
    if (after == null) throw new Error('The after advisor must not be null')
    let copy = this.#shared.copies.get(after)
    if (!copy) {
      const index = this.#shared.advisors.indexOf(after)
      if (index < 0) throw new Error(`The specified advisor is not part of the chain: ${after.name}`)
      copy = AdvisorChain.#fromSorted(this.#shared.advisors.slice(index + 1))
      this.#shared.copies.set(after, copy)
    }
    return copy
  }
}

/** `advisor.adviseCall`, its throw a rejection. */
function advise(advisor: CallAdvisor, request: ChatClientRequest, chain: AdvisorChain): Promise<ChatClientResponse> {
  try {
    return advisor.adviseCall(request, chain)
  } catch (error) {
    return Promise.reject(error)
  }
}

interface SharedChain {
  /** Set on a chain made with `of`: a copy re-runs part of a run, it never starts one. */
  readonly run: RunPlan | undefined
  readonly advisors: readonly Advisor[]
  readonly calls: readonly CallAdvisor[]
  readonly streams: readonly StreamAdvisor[]
  readonly copies: Map<Advisor, AdvisorChain>
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

// Compares instead of subtracting: `Infinity - Infinity` is NaN, which would scramble the sort.
function byOrder(a: Advisor, b: Advisor): number {
  const terminal = Number(isTerminalAdvisor(a)) - Number(isTerminalAdvisor(b))
  if (terminal !== 0) return terminal
  return a.order < b.order ? -1 : a.order > b.order ? 1 : 0
}

/** A stream whose first read fails with `error`. */
function failingStream(error: Error): AsyncIterable<ChatClientResponse> {
  return streamStage({
    open: () => {
      throw error
    },
  })
}
