import {
  cutAt,
  positiveInteger,
  type CompactionRequest,
  type CompactionResult,
  type CompactionStrategy,
} from './compaction'
import { isReal } from './session-view'
import type { TokenCountEstimator } from './token-count-estimator'

/**
 * Keeps the newest real events that fit in `maxTokens` (default 4000) beside the pinned ones, cut
 * forward to the start of a whole turn.
 */
export class TokenCountCompactionStrategy implements CompactionStrategy {
  static readonly DEFAULT_MAX_TOKENS = 4000
  readonly name = 'token-count'

  constructor(
    readonly maxTokens = TokenCountCompactionStrategy.DEFAULT_MAX_TOKENS,
    readonly tokenCountEstimator?: TokenCountEstimator,
  ) {
    positiveInteger(maxTokens, 'TokenCountCompactionStrategy maxTokens')
  }

  static builder(): TokenCountCompactionStrategyBuilder {
    return new TokenCountCompactionStrategyBuilder()
  }

  async compact(request: CompactionRequest): Promise<CompactionResult> {
    const estimator = this.tokenCountEstimator ?? request.tokenCountEstimator
    return cutAt(request, await tokenCut(request, this.maxTokens, estimator))
  }
}

export class TokenCountCompactionStrategyBuilder {
  #maxTokens = TokenCountCompactionStrategy.DEFAULT_MAX_TOKENS
  #estimator: TokenCountEstimator | undefined

  maxTokens(n: number): this {
    this.#maxTokens = n
    return this
  }

  tokenCountEstimator(estimator: TokenCountEstimator): this {
    this.#estimator = estimator
    return this
  }

  build(): TokenCountCompactionStrategy {
    return new TokenCountCompactionStrategy(this.#maxTokens, this.#estimator)
  }
}

/** The index of the oldest real event of the newest run that fits in `budget` beside the pinned events. */
export async function tokenCut(
  request: CompactionRequest,
  budget: number,
  estimator: TokenCountEstimator,
): Promise<number> {
  const real = request.events.filter(isReal)
  const pinned = request.events.filter((event) => !isReal(event)).map((event) => event.message)
  let left = budget - (await estimator.estimate(pinned))
  let cut = real.length
  for (let i = real.length - 1; i >= 0; i--) {
    const tokens = await estimator.estimate([real[i]!.message])
    if (tokens > left) break
    left -= tokens
    cut = i
  }
  return cut
}
