import { LOWEST_PRECEDENCE, type CallAdvisor, type ChatClientResponse, type StreamAdvisor } from './advisor'
import { pickFromStream } from './guarded-stream'
import { PENDING_TOOL_CALLS_KEY } from './context-keys'
import type { AssistantMessage } from './messages'
import type { ChatModel, ChatResponse } from './model'
import { withOutputFormat } from './output-format'

/** The last call advisor: it sends the prompt to the model, shaped for structured output when asked. */
export function modelCallAdvisor(model: ChatModel): CallAdvisor {
  return {
    name: 'call',
    order: LOWEST_PRECEDENCE,
    async adviseCall(request) {
      const pending = pendingToolCalls(request.context)
      if (pending) return { chatResponse: pending, context: request.context }
      const chatResponse = await model.call(withOutputFormat(request.prompt, request.context, model), request.signal)
      return { chatResponse, context: request.context }
    },
  }
}

/** The last stream advisor: it streams the prompt from the model, one response per chunk. */
export function modelStreamAdvisor(model: ChatModel): StreamAdvisor {
  return {
    name: 'stream',
    order: LOWEST_PRECEDENCE,
    adviseStream(request): AsyncIterable<ChatClientResponse> {
      const context = request.context
      const pending = pendingToolCalls(context)
      const stream = pending ? once(pending) : model.stream(request.prompt, request.signal)
      return pickFromStream(stream, (chatResponse) => ({ chatResponse, context }))
    },
  }
}

/** The tool calls a resumed conversation ended with, as the response of its first round. */
function pendingToolCalls(context: Readonly<Record<string, unknown>>): ChatResponse | undefined {
  const message = context[PENDING_TOOL_CALLS_KEY] as AssistantMessage | undefined
  if (!message) return undefined
  return { results: [{ output: message, metadata: { finishReason: 'tool_calls' } }], metadata: { resumed: true } }
}

async function* once(response: ChatResponse): AsyncGenerator<ChatResponse> {
  yield response
}
