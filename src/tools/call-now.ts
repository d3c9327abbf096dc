import type { ToolCallback, ToolContext } from '../core'

// What `call` does, without its promise: a tool whose validator is ready and whose function returns
// a value answers at once, so the tool calling manager need not wait a tick per call.
export const answersNow = new WeakMap<
  ToolCallback,
  (input: string, context: ToolContext, parsed?: unknown) => string | Promise<string>
>()

/**
 * `tool.call(input, context)`, answered at once (or thrown) when the tool can; a promise otherwise.
 * `parsed`: `input` parsed already (a tool of defineTool does not parse it again).
 */
export function callTool(
  tool: ToolCallback,
  input: string,
  context: ToolContext,
  parsed?: unknown,
): string | Promise<string> {
  const now = answersNow.get(tool)
  return now ? now(input, context, parsed) : tool.call(input, context)
}

/** Whether a tool's result is to be waited for (a promise or another thenable). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function'
}
