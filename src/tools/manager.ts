import {
  type AnyAdvisor,
  type AssistantMessage,
  type Message,
  type ToolResponseMessage,
  type ChatOptions,
  type ChatResponse,
  type Prompt,
  type ToolDefinition,
  type ToolExecutionEnd,
  type ToolExecutionStart,
  wholeNumber,
} from '../core'
import { toolMap } from './tool-map'
import { executeToolRound } from './tool-round'

export interface ToolExecutionResult {
  /** The prompt's messages, the assistant message with the tool calls, and one tool message. */
  conversationHistory: Message[]
  /** True when every call ran a returnDirect tool successfully. */
  returnDirect: boolean
  /** The two messages this execution adds to the prompt's messages: the assistant's calls and the tool responses. */
  appended?: readonly [AssistantMessage, ToolResponseMessage]
}

/** What the manager reports while it runs the calls of one round. */
export type ToolExecutionEvent = ({ type: 'start' } & ToolExecutionStart) | ({ type: 'end' } & ToolExecutionEnd)

export interface ToolExecutionInit {
  signal?: AbortSignal
  advisorContext?: Record<string, unknown>
  /** Handed to each tool as `ToolContext.advisors`. */
  advisors?: readonly AnyAdvisor[]
  onToolExecution?: (event: ToolExecutionEvent) => void
  /** The user message the turn began with; by default the last user message. Limits count from it. */
  turnStart?: Message
}

export interface ToolCallingManager {
  resolveToolDefinitions(options: ChatOptions): ToolDefinition[]
  executeToolCalls(prompt: Prompt, response: ChatResponse, init?: ToolExecutionInit): Promise<ToolExecutionResult>
}

export interface ToolCallLimits {
  /** Calls of one tool per turn (default 40). */
  perTool?: number
  /** Calls of all tools per turn (default 150). */
  total?: number
  /** `throw` ends the loop with a `toolCallLimitExceeded` answer; `error-response` answers the extra calls with `Error:`. */
  onExceed?: 'throw' | 'error-response'
}

export interface ManagerSettings {
  perTool: number
  total: number
  onExceed: 'throw' | 'error-response'
  maxIdenticalCalls: number
}

export class ToolCallingManagerBuilder {
  readonly #settings: ManagerSettings = { perTool: 40, total: 150, onExceed: 'throw', maxIdenticalCalls: 3 }

  limits(limits: ToolCallLimits): this {
    const { perTool = 40, total = 150, onExceed = 'throw' } = limits
    wholeNumber('perTool', perTool, 1)
    wholeNumber('total', total, 1)
    if (onExceed !== 'throw' && onExceed !== 'error-response') {
      throw new RangeError(`onExceed must be 'throw' or 'error-response', got ${String(onExceed)}`)
    }
    Object.assign(this.#settings, { perTool, total, onExceed })
    return this
  }

  /** How often the same tool may be called with the same arguments in one turn before it is refused (default 3). */
  maxIdenticalCalls(count: number): this {
    this.#settings.maxIdenticalCalls = wholeNumber('maxIdenticalCalls', count, 1)
    return this
  }

  build(): ToolCallingManager {
    return new DefaultToolCallingManager({ ...this.#settings })
  }
}

// Interface and value share the name, as in Spring: `ToolCallingManager.builder()`.
export const ToolCallingManager = {
  builder: (): ToolCallingManagerBuilder => new ToolCallingManagerBuilder(),
}

class DefaultToolCallingManager implements ToolCallingManager {
  readonly #settings: ManagerSettings

  constructor(settings: ManagerSettings) {
    this.#settings = settings
  }

  resolveToolDefinitions(options: ChatOptions): ToolDefinition[] {
    return [...toolMap(options.tools ?? []).values()].map((tool) => tool.definition)
  }

  executeToolCalls(prompt: Prompt, response: ChatResponse, init: ToolExecutionInit = {}): Promise<ToolExecutionResult> {
    return executeToolRound(this.#settings, prompt, response, init)
  }
}
