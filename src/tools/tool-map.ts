import type { ToolCallback } from '../core'

// The same tools array comes back every round, so its name index is built once.
const toolMaps = new WeakMap<readonly ToolCallback[], ReadonlyMap<string, ToolCallback>>()

/** The tools of a request by name; two tools with one name are refused, naming where each came from. */
export function toolMap(tools: readonly ToolCallback[]): ReadonlyMap<string, ToolCallback> {
  let map = toolMaps.get(tools)
  if (!map) {
    const byName = new Map<string, ToolCallback>()
    for (const tool of tools) {
      const name = tool.definition.name
      const first = byName.get(name)
      // One object given twice (a hook adding it again each round) is one tool, not a clash.
      if (first && first !== tool)
        throw new Error(
          `Two tools are named '${name}': ${origin(first)} and ${origin(tool)}. Names must be unique in one request: rename one, or give mcpTools a prefix`,
        )
      byName.set(name, tool)
    }
    toolMaps.set(tools, (map = byName))
  }
  return map
}

/** Where a tool comes from: this page, or e.g. `mcp 'github 1.2.0' at https://…/mcp`. */
function origin({ metadata: { source } }: ToolCallback): string {
  return `a tool of ${source ? `${source.kind} '${source.name}'${source.url ? ` at ${source.url}` : ''}` : 'this page'}`
}
