import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ToolCallback, ToolSource } from '../core'
import { defineTool, ToolCallError } from '../tools'
import type { Redactor } from '../trace'
import type { McpConnection } from './connection'
import { cut, forTrace, resultText } from './result'

export interface McpToolSettings {
  /** The name the model sees (`prefix` + the server's name). */
  name: string
  connection: McpConnection
  source: ToolSource
  redactor: Redactor
  maxResultLength: number
  timeoutMs: number
}

/**
 * One tool of an MCP server as a ToolCallback: arguments are checked against the server's schema
 * like any tool's, the call goes to the server with the loop's AbortSignal, and the result comes
 * back as text. `isError` results, transport failures and oversized results become `Error:` responses,
 * and no text of the server's reaches the model longer than `maxResultLength`.
 */
export function mcpTool(tool: Tool, settings: McpToolSettings): ToolCallback {
  const { name, connection, source, redactor, maxResultLength, timeoutMs } = settings
  const callback = defineTool({
    name,
    description: tool.description ?? tool.title ?? tool.name,
    inputSchema: tool.inputSchema,
    async execute(args, context) {
      const request = { method: 'tools/call', params: { name: tool.name, arguments: args } }
      const report = (response: Record<string, unknown>) =>
        context.report?.(
          redactor.data(forTrace({ server: source.name, request, ...response })) as Record<string, unknown>,
        )
      let result
      try {
        result = await connection.request(
          (client) =>
            client.callTool(request.params, undefined, {
              timeout: timeoutMs,
              // Progress notifications from a long-running tool keep its call alive.
              resetTimeoutOnProgress: true,
              onprogress: () => {},
              ...(context.signal ? { signal: context.signal } : {}),
            }),
          context.signal,
        )
      } catch (error) {
        if (context.signal?.aborted) {
          report({ cancelled: true })
          throw error
        }
        const reason = connection.describe(error)
        report({ error: reason })
        const failure =
          error instanceof ToolCallError
            ? `tool '${name}' failed: ${error.message}`
            : `tool '${name}' of the MCP server ${connection.host} failed: ${reason}`
        throw new ToolCallError(cut(failure, maxResultLength))
      }
      report({ response: result })
      const text = redactor.text(resultText(result))
      if (result.isError)
        throw new ToolCallError(cut(text, maxResultLength) || `tool '${name}' reported an error without a message`)
      if (text.length > maxResultLength) {
        throw new ToolCallError(
          `tool '${name}' returned ${text.length} characters, more than the limit of ${maxResultLength}; ask for less (a narrower query, fewer items)`,
        )
      }
      return text
    },
  })
  return { ...callback, metadata: { ...callback.metadata, source } }
}
