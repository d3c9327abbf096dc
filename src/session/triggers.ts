import { estimateEvents, positiveInteger, type CompactionRequest, type CompactionTrigger } from './compaction'
import type { TokenCountEstimator } from './token-count-estimator'

/** Fires when the view holds more than `maxTurns` turns. */
export class TurnCountTrigger implements CompactionTrigger {
  readonly name = 'turn-count'
  readonly maxTurns: number

  constructor(maxTurns: number) {
    this.maxTurns = positiveInteger(maxTurns, 'TurnCountTrigger maxTurns')
  }

  shouldCompact(request: CompactionRequest): boolean {
    return request.currentTurnCount > this.maxTurns
  }
}

/** Fires when the view's estimated tokens reach `threshold`. */
export class TokenCountTrigger implements CompactionTrigger {
  readonly name = 'token-count'

  private constructor(
    readonly threshold: number,
    readonly tokenCountEstimator: TokenCountEstimator | undefined,
  ) {}

  static builder(): TokenCountTriggerBuilder {
    return new TokenCountTriggerBuilder((threshold, estimator) => new TokenCountTrigger(threshold, estimator))
  }

  async shouldCompact(request: CompactionRequest): Promise<boolean> {
    const estimator = this.tokenCountEstimator ?? request.tokenCountEstimator
    return (await estimateEvents(estimator, request.events)) >= this.threshold
  }
}

export class TokenCountTriggerBuilder {
  #threshold: number | undefined
  #estimator: TokenCountEstimator | undefined

  constructor(private readonly make: (threshold: number, estimator?: TokenCountEstimator) => TokenCountTrigger) {}

  threshold(tokens: number): this {
    this.#threshold = positiveInteger(tokens, 'TokenCountTrigger threshold')
    return this
  }

  /** Default: the session's (the advisor's estimator, corrected by the model's reported usage). */
  tokenCountEstimator(estimator: TokenCountEstimator): this {
    this.#estimator = estimator
    return this
  }

  build(): TokenCountTrigger {
    if (this.#threshold === undefined) throw new TypeError('TokenCountTrigger needs a threshold: .threshold(tokens)')
    return this.make(this.#threshold, this.#estimator)
  }
}

/**
 * Fires when the view and what the next request adds reach `fraction` of the model's own window
 * (`ChatModel.contextWindow`), before the model refuses the prompt. The tokens are the model's own
 * count when it counts (`ChatModel.countTokens`), else the estimate. Without a known window it never fires.
 */
export class ContextWindowTrigger implements CompactionTrigger {
  readonly name = 'context-window'
  static readonly DEFAULT_FRACTION = 0.8

  private constructor(
    readonly fraction: number,
    readonly contextWindow: number | undefined,
  ) {}

  static builder(): ContextWindowTriggerBuilder {
    return new ContextWindowTriggerBuilder((fraction, window) => new ContextWindowTrigger(fraction, window))
  }

  /** The tokens above which it fires, for a model of `contextWindow`. */
  limitFor(contextWindow: number): number {
    return Math.floor(contextWindow * this.fraction)
  }

  async shouldCompact(request: CompactionRequest): Promise<boolean> {
    const window = this.contextWindow ?? request.contextWindow
    if (window === undefined) return false
    const tokens = request.countTokens
      ? await request.countTokens(request.events.map((event) => event.message))
      : (await estimateEvents(request.tokenCountEstimator, request.events)) + (request.reservedTokens ?? 0)
    return tokens >= this.limitFor(window)
  }
}

export class ContextWindowTriggerBuilder {
  #fraction = ContextWindowTrigger.DEFAULT_FRACTION
  #window: number | undefined

  constructor(private readonly make: (fraction: number, window?: number) => ContextWindowTrigger) {}

  /** The share of the window to fill before compacting (default 0.8). */
  fraction(fraction: number): this {
    if (!(fraction > 0 && fraction <= 1))
      throw new RangeError(`ContextWindowTrigger fraction must be above 0 and at most 1, got ${fraction}`)
    this.#fraction = fraction
    return this
  }

  /** The window, for a model that does not say its own. */
  contextWindow(tokens: number): this {
    this.#window = positiveInteger(tokens, 'ContextWindowTrigger contextWindow')
    return this
  }

  build(): ContextWindowTrigger {
    return this.make(this.#fraction, this.#window)
  }
}

/** Fires when any of its triggers does. */
export class CompositeCompactionTrigger implements CompactionTrigger {
  private constructor(readonly triggers: readonly CompactionTrigger[]) {}

  static anyOf(...triggers: CompactionTrigger[]): CompositeCompactionTrigger {
    if (triggers.length === 0) throw new TypeError('CompositeCompactionTrigger.anyOf needs at least one trigger')
    return new CompositeCompactionTrigger(triggers)
  }

  get name(): string {
    return this.triggers.map((trigger) => trigger.name ?? trigger.constructor.name).join(' | ')
  }

  async shouldCompact(request: CompactionRequest): Promise<boolean> {
    for (const trigger of this.triggers) if (await trigger.shouldCompact(request)) return true
    return false
  }
}
