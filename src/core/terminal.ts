import {
  LOWEST_PRECEDENCE,
  type Advisor,
  type CallAdvisor,
  type ChatClientResponse,
  type StreamAdvisor,
} from './advisor'
import { PENDING_TOOL_CALLS_KEY, contextValue } from './context-keys'
import type { Message } from './messages'
import type { ChatModel, ChatResponse, Prompt } from './model'
import { streamOf, streamStage } from './stream-stage'

// Marks the advisors that call the model: they run last whatever order other advisors claim.
const TERMINAL: unique symbol = Symbol.for('advisor-chain.terminal')

/** An advisor that calls the model; it names the model's provider, for observers. */
export interface TerminalAdvisor {
  readonly [TERMINAL]: true
  readonly provider: string
  /** The model it calls: advisors read what it says of itself (its context window, a token count). */
  readonly model?: ChatModel
  /** The same terminal calling another model, its prompt shaped for that model (an escalation's fallback). */
  withModel(model: ChatModel): Advisor & TerminalAdvisor
}

export function isTerminalAdvisor(advisor: object): advisor is TerminalAdvisor {
  return (advisor as Partial<TerminalAdvisor>)[TERMINAL] === true
}

/** Shapes the prompt at the last moment before `model` sees it (structured output instructions). */
export type PromptShaper = (prompt: Prompt, context: Readonly<Record<string, unknown>>, model: ChatModel) => Prompt

/** The provider of the model a chain ends in, when its last advisor is a terminal. */
export function providerOf(advisors: readonly Advisor[]): string | undefined {
  const last = advisors.at(-1)
  return last && isTerminalAdvisor(last) ? last.provider : undefined
}

/** The model a chain ends in, when its last advisor is a terminal that names it. */
export function modelOf(advisors: readonly Advisor[]): ChatModel | undefined {
  const last = advisors.at(-1)
  return last && isTerminalAdvisor(last) ? last.model : undefined
}

/** What a terminal says of itself: it runs last, and names the model it calls. */
function terminal(name: string, model: ChatModel, withModel: TerminalAdvisor['withModel']): Advisor & TerminalAdvisor {
  return { name, order: LOWEST_PRECEDENCE, [TERMINAL]: true, provider: model.provider, model, withModel }
}

/** The last call advisor: it sends the prompt to the model, shaped by `shape` (structured output). */
export function modelCallAdvisor(
  model: ChatModel,
  shape: PromptShaper = (prompt) => prompt,
): CallAdvisor & TerminalAdvisor {
  return {
    ...terminal('call', model, (other) => modelCallAdvisor(other, shape)),
    adviseCall(request) {
      // A reaction on the model's promise rather than an async function: no suspended frame per round.
      try {
        const context = request.context
        const response =
          pendingToolCalls(context, request.prompt.messages) ??
          model.call(shape(request.prompt, context, model), request.signal)
        return Promise.resolve(response).then((chatResponse) => ({ chatResponse, context }))
      } catch (error) {
        return Promise.reject(error)
      }
    },
  }
}

/** The last stream advisor: it streams the prompt from the model, one response per chunk. */
export function modelStreamAdvisor(
  model: ChatModel,
  shape: PromptShaper = (prompt) => prompt,
): StreamAdvisor & TerminalAdvisor {
  return {
    ...terminal('stream', model, (other) => modelStreamAdvisor(other, shape)),
    adviseStream(request): AsyncIterable<ChatClientResponse> {
      const context = request.context
      return streamStage({
        open() {
          const pending = pendingToolCalls(context, request.prompt.messages)
          return pending ? streamOf(pending) : model.stream(shape(request.prompt, context, model), request.signal)
        },
        chunk: (chatResponse: ChatResponse): ChatClientResponse => ({ chatResponse, context }),
      })
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
    contextValue(context, PENDING_TOOL_CALLS_KEY) ??
    (last?.role === 'assistant' && last.toolCalls.length > 0 ? last : undefined)
  if (!message) return undefined
  return { results: [{ output: message, metadata: { finishReason: 'tool_calls' } }], metadata: { resumed: true } }
}
