import type { Advisor } from '../core'

export { isToolAdvisor, TOOL_ADVISOR, type ToolAdvisor } from '../core'

const FALLBACK_MODEL = Symbol.for('advisor-chain.fallback-model')

const MEMORY_ADVISOR = Symbol.for('advisor-chain.memory-advisor')

/** Marks an advisor that keeps chat memory; inside the tool loop it takes over the loop's history. */
export interface MemoryAdvisor extends Advisor {
  readonly [MEMORY_ADVISOR]: true
}

export function isMemoryAdvisor(advisor: unknown): advisor is MemoryAdvisor {
  return (advisor as Partial<MemoryAdvisor> | null)?.[MEMORY_ADVISOR] === true
}

/** Marks an advisor that sends failed rounds to a fallback model (EscalationAdvisor), by the fallback's model id. */
export interface FallbackAdvisor extends Advisor {
  readonly [FALLBACK_MODEL]: string
}

/** The fallback's model id of an advisor among `advisors` that has one (an observer prices the device's rounds at it). */
export function fallbackModelOf(advisors: readonly unknown[]): string | undefined {
  for (const advisor of advisors) {
    const model = (advisor as Partial<FallbackAdvisor> | null)?.[FALLBACK_MODEL]
    if (typeof model === 'string') return model
  }
  return undefined
}

export { FALLBACK_MODEL, MEMORY_ADVISOR }
