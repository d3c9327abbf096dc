import type { Advisor } from '../core'

export { isToolAdvisor, TOOL_ADVISOR, type ToolAdvisor } from '../core'

const MEMORY_ADVISOR = Symbol.for('advisor-chain.memory-advisor')

/** Marks an advisor that keeps chat memory; inside the tool loop it takes over the loop's history. */
export interface MemoryAdvisor extends Advisor {
  readonly [MEMORY_ADVISOR]: true
}

export function isMemoryAdvisor(advisor: unknown): advisor is MemoryAdvisor {
  return (advisor as Partial<MemoryAdvisor> | null)?.[MEMORY_ADVISOR] === true
}

export { MEMORY_ADVISOR }
