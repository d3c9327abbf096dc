import type { ToolCall } from './messages'
import type { JsonSchema } from './json-schema'

/** What the model is told about a tool. */
export interface ToolDefinition {
  name: string
  description: string
  inputSchema: JsonSchema
}

export interface ToolMetadata {
  /** When every tool of a round is returnDirect, its output is the answer and the model is not asked again. */
  returnDirect: boolean
}

/** Everything a running tool may look at besides its arguments. */
export interface ToolContext {
  /** The `toolContext` of the chat options. */
  values: Record<string, unknown>
  /** The advisor context of the request that produced the call. */
  advisorContext: Record<string, unknown>
  toolCall: ToolCall
  signal?: AbortSignal
}

/** An executable tool: its definition for the model and the function that answers a call. */
export interface ToolCallback {
  readonly definition: ToolDefinition
  readonly metadata: ToolMetadata
  /** `input` is the raw JSON arguments; the result is the text sent back to the model. */
  call(input: string, context: ToolContext): Promise<string>
  /**
   * Gets ready for calls (e.g. loads and compiles the argument validator), once; the tool calling
   * manager awaits it before it times a call, so setup is reported apart from the tool's own time.
   */
  prepare?(): Promise<void>
}
