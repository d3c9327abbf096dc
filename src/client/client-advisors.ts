import type { AnyAdvisor } from '../core'
import { TOOL_CALLING_AUTO_REGISTER } from './advisor-params'
import { isMemoryAdvisor, isToolAdvisor, ToolCallingAdvisor, type ToolCallingAdvisorBuilder } from '../advisors'

/**
 * The advisors of one call: the given ones plus, unless turned off or already present, a
 * ToolCallingAdvisor — with its own history off when a memory advisor sits inside its loop.
 */
export function withToolAdvisor(
  advisors: readonly AnyAdvisor[],
  params: Readonly<Record<string, unknown>>,
  builder: ToolCallingAdvisorBuilder | undefined,
): AnyAdvisor[] {
  const toolAdvisors = advisors.filter(isToolAdvisor)
  if (toolAdvisors.length > 1) {
    throw new Error(
      `At most one ToolAdvisor is allowed in the advisor chain, but found ${toolAdvisors.length}: [${toolAdvisors.map((a) => `${a.name} (order=${a.order})`).join(', ')}]`,
    )
  }
  if (toolAdvisors.length === 1 || params[TOOL_CALLING_AUTO_REGISTER] === false) return [...advisors]
  const toolBuilder = builder ?? ToolCallingAdvisor.builder()
  const memoryInsideLoop = advisors.some((advisor) => isMemoryAdvisor(advisor) && advisor.order > toolBuilder.order)
  const overrides = memoryInsideLoop ? { conversationHistoryEnabled: false } : {}
  if (builder) return [...advisors, builder.build(overrides)]
  // The built-in advisor keeps no state between calls: one per history setting serves every call
  // (and lets a client reuse its chain). An app's builder may make a subclass with state: built per call.
  let toolAdvisor = builtIn.get(memoryInsideLoop)
  if (!toolAdvisor) builtIn.set(memoryInsideLoop, (toolAdvisor = toolBuilder.build(overrides)))
  return [...advisors, toolAdvisor]
}

const builtIn = new Map<boolean, ToolCallingAdvisor>()
