import type { Advisor } from '../core'

const TOOL_ADVISOR = Symbol.for('advisor-chain.tool-advisor')
const MEMORY_ADVISOR = Symbol.for('advisor-chain.memory-advisor')

/** Marks the advisor that runs the tool loop; a chain may hold at most one. */
export interface ToolAdvisor extends Advisor {
  readonly [TOOL_ADVISOR]: true
}

/** Marks an advisor that keeps chat memory; inside the tool loop it takes over the loop's history. */
export interface MemoryAdvisor extends Advisor {
  readonly [MEMORY_ADVISOR]: true
}

export function isToolAdvisor(advisor: unknown): advisor is ToolAdvisor {
  return (advisor as Partial<ToolAdvisor> | null)?.[TOOL_ADVISOR] === true
}

export function isMemoryAdvisor(advisor: unknown): advisor is MemoryAdvisor {
  return (advisor as Partial<MemoryAdvisor> | null)?.[MEMORY_ADVISOR] === true
}

export { MEMORY_ADVISOR, TOOL_ADVISOR }
