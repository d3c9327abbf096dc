import type { AnyAdvisor } from './advisor'
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
  /** Where the tool runs when it is not a function of this page (an MCP server); traced with each call. */
  source?: ToolSource
  /**
   * Whether a call waits for the user's approval before it runs: always, or decided from its
   * arguments. A ChatClient with such a tool adds a ToolApprovalAdvisor with its own ApprovalQueue.
   */
  needsApproval?: ToolApprovalRule
}

/** `true`, or a function of a call's arguments (a throw asks the user: approvals fail closed). */
export type ToolApprovalRule = boolean | ((args: unknown, context: ToolContext) => boolean | Promise<boolean>)

/** The origin of a tool, as plain data for the trace and the devtools. */
export interface ToolSource {
  /** The kind of origin, e.g. `mcp`. */
  kind: string
  /** Who answers the calls, e.g. the MCP server's name and version. */
  name: string
  /** Where it is reached, without credentials, query or fragment. */
  url?: string
}

/** Everything a running tool may look at besides its arguments. */
export interface ToolContext {
  /** The `toolContext` of the chat options. */
  values: Record<string, unknown>
  /** The advisor context of the request that produced the call. */
  advisorContext: Record<string, unknown>
  toolCall: ToolCall
  /**
   * The turn's signal (the tool loop always gives one): it aborts when the turn is stopped. Give it
   * to a call the tool makes (`.signal(context.signal)`): the call stops with the turn, and a call
   * on the turn's own conversation fails at once instead of waiting for the turn that waits for it.
   * It may be a getter: a copy of the context (`{ ...context }`) names it (`{ ...context, signal: context.signal }`).
   */
  signal?: AbortSignal
  /**
   * Hands plain data about this call to the trace (an MCP tool: the request it sent and the
   * response it got); the last report of a call is the one recorded with its result.
   */
  report?(detail: Record<string, unknown>): void
  /**
   * The calling chain's advisors that hear chain events (its observer; the parts reporter of a
   * stream), so a tool that runs a chain of its own (`agentTool`) can let them see inside it.
   */
  advisors?: readonly AnyAdvisor[]
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

/**
 * A tool made by `defineTool`: a ToolCallback that also carries, for types only, its name and the
 * arguments its schema allows (what a chat UI's tool parts are typed by).
 */
export interface TypedTool<Name extends string = string, Input = unknown> extends ToolCallback {
  /** Types only; never set. */
  readonly '~tool'?: { readonly name: Name; readonly input: Input }
}
