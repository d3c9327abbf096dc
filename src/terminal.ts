import { LOWEST_PRECEDENCE, type CallAdvisor, type ChatClientResponse, type StreamAdvisor } from './advisor'
import { pickFromStream } from './guarded-stream'
import type { ChatModel } from './model'
import { withOutputFormat } from './output-format'

/** The last call advisor: it sends the prompt to the model, shaped for structured output when asked. */
export function modelCallAdvisor(model: ChatModel): CallAdvisor {
  return {
    name: 'call',
    order: LOWEST_PRECEDENCE,
    async adviseCall(request) {
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
      return pickFromStream(model.stream(request.prompt, request.signal), (chatResponse) => ({ chatResponse, context }))
    },
  }
}
