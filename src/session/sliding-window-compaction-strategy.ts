import {
  cutAt,
  isRootEvent,
  keepNewest,
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
  return keepNewest(request.events.filter(isReal), isRootEvent, keep)
}
