import type { ToolCallback } from '../core'

// The same tools array comes back every round, so its name index is built once.
const toolMaps = new WeakMap<readonly ToolCallback[], ReadonlyMap<string, ToolCallback>>()

/** The tools of a request by name; two tools with one name are refused. */
export function toolMap(tools: readonly ToolCallback[]): ReadonlyMap<string, ToolCallback> {
  let map = toolMaps.get(tools)
  if (!map) {
    const byName = new Map<string, ToolCallback>()
    for (const tool of tools) {
      const name = tool.definition.name
      if (byName.has(name)) throw new Error(`Two tools are named '${name}'; tool names must be unique in one request`)
      byName.set(name, tool)
    }
    toolMaps.set(tools, (map = byName))
  }
  return map
}
