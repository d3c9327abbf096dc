import {
  countTurns,
  cutAt,
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
    const real = request.events.filter(isReal)
    const drop = countTurns(real) - this.maxTurns
    if (drop <= 0) return cutAt(request, 0)
    // Just after the start of the oldest turn that goes: the cut then moves on to the next turn's start.
    let seen = 0
    const cut = real.findIndex((event) => isTurnStart(event) && ++seen === drop)
    return cutAt(request, cut + 1)
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
