import {
  cutAt,
  keepNewest,
  positiveInteger,
  type CompactionRequest,
  type CompactionResult,
  type CompactionStrategy,
} from './compaction'
import { isTurnStart } from './session'
import { isReal } from './session-view'

/** Keeps the newest `maxTurns` whole turns (default 10). */
export class TurnWindowCompactionStrategy implements CompactionStrategy {
  static readonly DEFAULT_MAX_TURNS = 10
  readonly name = 'turn-window'

  constructor(readonly maxTurns = TurnWindowCompactionStrategy.DEFAULT_MAX_TURNS) {
    positiveInteger(maxTurns, 'TurnWindowCompactionStrategy maxTurns')
  }

  static builder(): TurnWindowCompactionStrategyBuilder {
    return new TurnWindowCompactionStrategyBuilder()
  }

  compact(request: CompactionRequest): Promise<CompactionResult> {
    // Just after the start of the oldest turn that goes: the cut then moves on to the next turn's start.
    return cutAt(request, keepNewest(request.events.filter(isReal), isTurnStart, this.maxTurns))
  }
}

export class TurnWindowCompactionStrategyBuilder {
  #maxTurns = TurnWindowCompactionStrategy.DEFAULT_MAX_TURNS

  maxTurns(n: number): this {
    this.#maxTurns = n
    return this
  }

  build(): TurnWindowCompactionStrategy {
    return new TurnWindowCompactionStrategy(this.#maxTurns)
  }
}
