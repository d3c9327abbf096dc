import {
  cutAt,
  isRootEvent,
  positiveInteger,
  type CompactionRequest,
  type CompactionResult,
  type CompactionStrategy,
} from './compaction'
import { isReal } from './session-view'

/** Keeps the newest `maxEvents` root events (default 20), cut forward to the start of a whole turn. */
export class SlidingWindowCompactionStrategy implements CompactionStrategy {
  static readonly DEFAULT_MAX_EVENTS = 20
  readonly name = 'sliding-window'

  constructor(readonly maxEvents = SlidingWindowCompactionStrategy.DEFAULT_MAX_EVENTS) {
    positiveInteger(maxEvents, 'SlidingWindowCompactionStrategy maxEvents')
  }

  static builder(): SlidingWindowCompactionStrategyBuilder {
    return new SlidingWindowCompactionStrategyBuilder()
  }

  compact(request: CompactionRequest): Promise<CompactionResult> {
    return cutAt(request, rawCut(request, this.maxEvents))
  }
}

export class SlidingWindowCompactionStrategyBuilder {
  #maxEvents = SlidingWindowCompactionStrategy.DEFAULT_MAX_EVENTS

  maxEvents(n: number): this {
    this.#maxEvents = n
    return this
  }

  build(): SlidingWindowCompactionStrategy {
    return new SlidingWindowCompactionStrategy(this.#maxEvents)
  }
}

/** The index into the view's real events just after the oldest root events beyond the newest `keep`. */
export function rawCut(request: CompactionRequest, keep: number): number {
  const real = request.events.filter(isReal)
  const roots = real.filter(isRootEvent).length
  if (roots <= keep) return 0
  let seen = 0
  for (let i = 0; i < real.length; i++) {
    if (isRootEvent(real[i]!) && ++seen === roots - keep) return i + 1
  }
  return 0
}
