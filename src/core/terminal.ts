import { LOWEST_PRECEDENCE, type CallAdvisor, type ChatClientResponse, type StreamAdvisor } from './advisor'
import { pickFromStream } from './guarded-stream'
import { PENDING_TOOL_CALLS_KEY } from './context-keys'
import type { AssistantMessage, Message } from './messages'
import type { ChatModel, ChatResponse, Prompt } from './model'

// Marks the advisors that call the model: they run last whatever order other advisors claim.
const TERMINAL: unique symbol = Symbol.for('advisor-chain.terminal')

interface Terminal {
  readonly [TERMINAL]: true
}

export function isTerminalAdvisor(advisor: object): boolean {
  return (advisor as Partial<Terminal>)[TERMINAL] === true
}

/** Shapes the prompt at the last moment before the model sees it (structured output instructions). */
export type PromptShaper = (prompt: Prompt, context: Readonly<Record<string, unknown>>) => Prompt

/** The last call advisor: it sends the prompt to the model, shaped by `shape` (structured output). */
export function modelCallAdvisor(model: ChatModel, shape: PromptShaper = (prompt) => prompt): CallAdvisor & Terminal {
  return {
    name: 'call',
    order: LOWEST_PRECEDENCE,
    [TERMINAL]: true,
    async adviseCall(request) {
      const pending = pendingToolCalls(request.context, request.prompt.messages)
      if (pending) return { chatResponse: pending, context: request.context }
      const chatResponse = await model.call(shape(request.prompt, request.context), request.signal)
      return { chatResponse, context: request.context }
    },
  }
}

/** The last stream advisor: it streams the prompt from the model, one response per chunk. */
export function modelStreamAdvisor(model: ChatModel): StreamAdvisor & Terminal {
  return {
    name: 'stream',
    order: LOWEST_PRECEDENCE,
    [TERMINAL]: true,
    adviseStream(request): AsyncIterable<ChatClientResponse> {
      const context = request.context
      const pending = pendingToolCalls(context, request.prompt.messages)
      const stream = pending ? once(pending) : model.stream(request.prompt, request.signal)
      return pickFromStream(stream, (chatResponse) => ({ chatResponse, context }))
    },
  }
}

/**
 * The tool calls a conversation ended with before they were answered (a reload mid-turn), as the
 * response of this round: no model accepts such a prompt, and the loop can run them now. They come
 * from the tool loop, or from the prompt itself when a memory advisor in the loop rebuilt it.
 */
function pendingToolCalls(
  context: Readonly<Record<string, unknown>>,
  messages: readonly Message[],
): ChatResponse | undefined {
  const last = messages.at(-1)
  const message =
    (context[PENDING_TOOL_CALLS_KEY] as AssistantMessage | undefined) ??
    (last?.role === 'assistant' && last.toolCalls.length > 0 ? last : undefined)
  if (!message) return undefined
  return { results: [{ output: message, metadata: { finishReason: 'tool_calls' } }], metadata: { resumed: true } }
}

async function* once(response: ChatResponse): AsyncGenerator<ChatResponse> {
  yield response
}
