import { ToolSchema, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { cut } from './result'
import { schemaProblem } from './tool-schema'

/** A tool of a server's list that can be offered to a model, or why it cannot. */
export type ListedTool = { name: string; tool: Tool } | { name: string; reason: string }

export interface ListingRules {
  /** Put in front of each server name: the name the model sees. */
  prefix: string
  /** The most characters of server text the model reads at once (the set's `maxResultLength`). */
  maxLength: number
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/
// Validators and the SDK's own checks recurse: a definition deeper than this is refused before any of them reads it.
const MAX_DEPTH = 64
const SHOWN_NAME_LENGTH = 80

/**
 * Judges every entry of a tool list on its own, in order: a malformed, duplicated, oversized or
 * too deeply nested tool is left out with its reason, and never costs the others their place.
 */
export function judgeListing(entries: readonly unknown[], rules: ListingRules): Promise<ListedTool[]> {
  const counts = new Map<unknown, number>()
  for (const entry of entries) counts.set(serverName(entry), (counts.get(serverName(entry)) ?? 0) + 1)
  return Promise.all(
    entries.map(async (entry, index) => {
      const listed = serverName(entry)
      const name =
        typeof listed === 'string'
          ? cut(rules.prefix + listed, SHOWN_NAME_LENGTH)
          : `(tool ${index + 1} of the list, without a name)`
      try {
        const judged = await judge(entry, name, counts.get(listed) ?? 1, rules)
        return typeof judged === 'string' ? { name, reason: judged } : { name, tool: judged }
      } catch (error) {
        return { name, reason: `it could not be checked: ${(error as Error).message}` }
      }
    }),
  )
}

async function judge(entry: unknown, name: string, sameName: number, rules: ListingRules): Promise<Tool | string> {
  if (depthOver(entry, MAX_DEPTH)) return `its definition is nested more than ${MAX_DEPTH} levels deep`
  const parsed = ToolSchema.safeParse(entry)
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((issue) => `${issue.path.join('.') || '/'}: ${issue.message}`)
    return `it is not a tool as MCP defines one (${issues.join('; ')})`
  }
  const tool = parsed.data
  if (!TOOL_NAME.test(rules.prefix + tool.name))
    return `its name '${name}' is not accepted by model APIs (1–64 letters, digits, '_' or '-'; a prefix must keep to them too)`
  if (sameName > 1)
    return `the server lists ${sameName} tools named '${tool.name}', and a call by that name could run any of them`
  const size = (tool.description ?? '').length + JSON.stringify(tool.inputSchema).length
  if (size > rules.maxLength)
    return `its description and input schema take ${size} characters, more than maxResultLength (${rules.maxLength}); the model would read them with every request`
  return (
    (await schemaProblem(tool.inputSchema)) ??
    (tool.outputSchema && (await schemaProblem(tool.outputSchema, 'output'))) ??
    tool
  )
}

function serverName(entry: unknown): unknown {
  return entry !== null && typeof entry === 'object' ? (entry as { name?: unknown }).name : undefined
}

/** Whether objects and arrays in `value` nest deeper than `max`, found without recursion. */
function depthOver(value: unknown, max: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]]
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next
    if (item === null || typeof item !== 'object') continue
    if (depth > max) return true
    for (const child of Object.values(item)) pending.push([child, depth + 1])
  }
  return false
}
