/**
 * The options an advisor's builder gathers: each of the builder's methods sets one and returns the
 * builder (`set`), and `build()` hands a copy of them to the advisor's constructor (`values`).
 */
export class BuilderOptions<Options extends object, Builder> {
  readonly #values: Partial<Options> = {}

  constructor(private readonly builder: Builder) {}

  set<K extends keyof Options>(key: K, value: Options[K]): Builder {
    this.#values[key] = value
    return this.builder
  }

  /** A copy: a builder built twice gives two advisors that share nothing. */
  values(): Partial<Options> {
    return { ...this.#values }
  }
}
