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
    const name = toolName(tool)
    if (name === undefined) return `Each tool needs a name or a type, got ${JSON.stringify(tool)?.slice(0, 200)}.`
    if (!policy.includes(name)) return `The tool ${JSON.stringify(name)} is not one this model proxy allows.`
  }
  return undefined
}

function toolName(tool: unknown): string | undefined {
  if (!isRecord(tool)) return undefined
  const type = tool['type']
  if (type !== undefined && type !== 'function' && type !== 'custom') return typeof type === 'string' ? type : undefined
  const named = [tool['function'], tool['custom'], tool].find(isRecord)!
  return typeof named['name'] === 'string' ? named['name'] : undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
