import type { Usage } from '../core'

/** What a model costs, in US dollars per million tokens. The app's prices: none are shipped (prices change). */
export interface ModelPrice {
  inputPerMTok: number
  outputPerMTok: number
  /** Input tokens read from the provider's cache; default: the input price. */
  cachedInputPerMTok?: number
}

/** Prices by model id, as the model's responses name it (`metadata.model`). */
export type Pricing = Readonly<Record<string, ModelPrice>>

/** Roughly four characters to a token, the common rule of thumb for English text (used only when a provider reports no usage). */
const CHARACTERS_PER_TOKEN = 4

/**
 * The cost of `usage` at `price`, in US dollars: cached input tokens (`cacheReadTokens`) at the
 * cached price, the rest of the prompt at the input price, the completion at the output price.
 */
export function costOf(usage: Usage, price: ModelPrice): number {
  const cached = Math.min(usage.cacheReadTokens ?? 0, usage.promptTokens)
  const cachedPrice = price.cachedInputPerMTok ?? price.inputPerMTok
  return (
    ((usage.promptTokens - cached) * price.inputPerMTok +
      cached * cachedPrice +
      usage.completionTokens * price.outputPerMTok) /
    1_000_000
  )
}

/** The price of `model` in `pricing`, if the app gave one. */
export function priceOf(pricing: Pricing, model: string | undefined): ModelPrice | undefined {
  return model !== undefined && Object.hasOwn(pricing, model) ? pricing[model] : undefined
}

/** Token counts guessed from text lengths, for a provider that reported no usage: an estimate, never exact. */
export function estimatedUsage(promptCharacters: number, completionCharacters: number): Usage {
  const promptTokens = Math.ceil(promptCharacters / CHARACTERS_PER_TOKEN)
  const completionTokens = Math.ceil(completionCharacters / CHARACTERS_PER_TOKEN)
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens }
}

/** Checks an app's pricing when an observer is made, naming the first bad entry. */
export function checkedPricing(pricing: unknown): Pricing {
  if (pricing === null || typeof pricing !== 'object' || Array.isArray(pricing))
    throw new TypeError(`pricing must be an object of prices by model id, got ${String(pricing)}`)
  for (const [model, price] of Object.entries(pricing)) {
    for (const field of ['inputPerMTok', 'outputPerMTok', 'cachedInputPerMTok'] as const) {
      const value = (price as Partial<ModelPrice> | null)?.[field]
      // The cached price may be left out.
      if (!(Number.isFinite(value) && value! >= 0) && (value !== undefined || field !== 'cachedInputPerMTok'))
        throw new TypeError(
          `pricing['${model}'].${field} must be a finite number ≥ 0 (US dollars per million tokens), got ${String(value)}`,
        )
    }
  }
  return pricing as Pricing
}
