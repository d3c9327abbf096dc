/** Which tools a page may send: all, none, or the ones named. */
export type ToolPolicy = 'any' | 'none' | readonly string[]

/**
 * Why the body's tools are refused, or undefined when the policy allows them. A function tool is
 * named by its name; a provider's built-in tool (web search, code interpreter…) by its `type`, so
 * allowing a function named `web_search` never allows the provider's paid search.
 */
export function refusedTools(body: Record<string, unknown>, policy: ToolPolicy): string | undefined {
  if (policy === 'any') return undefined
  if (body['mcp_servers'] !== undefined) return 'mcp_servers are not allowed by this model proxy.'
  const tools = [body['tools'], body['functions']].filter((field) => field !== undefined && field !== null)
  if (tools.some((field) => !Array.isArray(field))) return 'tools must be an array.'
  const sent = (tools as unknown[][]).flat()
  if (sent.length === 0) return undefined
  if (policy === 'none') return `This model proxy takes no tools, but the request sent ${sent.length}.`
  for (const tool of sent) {
    const names = toolNames(tool)
    if (names.length === 0) return `Each tool needs a name or a type, got ${JSON.stringify(tool)?.slice(0, 200)}.`
    const other = names.find((name) => !policy.includes(name))
    if (other !== undefined)
      return `The tool ${JSON.stringify(other.slice(0, 200))} is not one this model proxy allows.`
  }
  return undefined
}

/** Every name the tool goes by, whichever field its API reads, so a decoy name in another field allows nothing. */
function toolNames(tool: unknown): string[] {
  if (!isRecord(tool)) return []
  const type = tool['type']
  if (type !== undefined && type !== 'function' && type !== 'custom') return typeof type === 'string' ? [type] : []
  const named = [tool, tool['function'], tool['custom']].filter(isRecord)
  const names = named.map((holder) => holder['name'])
  return names.every((name) => name === undefined || typeof name === 'string')
    ? names.filter((name) => name !== undefined)
    : []
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
