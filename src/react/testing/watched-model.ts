import { isAbortError, type ChatModel, type ChatResponse, type Prompt } from '../../core'
import { ScriptedChatModel, type ScriptFunction, type ScriptStep } from '../../models'

/** How one model request went: its signal, and how its stream ended (undefined while it runs). */
export interface WatchedRequest {
  question: string | undefined
  signal: AbortSignal | undefined
  ended: 'answered' | 'aborted' | 'failed' | undefined
}

/**
 * A scripted model that keeps every request it streams, so a test can tell whether a request was
 * cancelled (its signal aborted, its stream ended by the abort) or ran on to its end.
 */
export class WatchedModel implements ChatModel {
  readonly provider = 'scripted'
  readonly requests: WatchedRequest[] = []
  readonly #scripted: ScriptedChatModel

  constructor(script: readonly ScriptStep[] | ScriptFunction) {
    this.#scripted = new ScriptedChatModel(script)
  }

  get prompts(): Prompt[] {
    return this.#scripted.prompts
  }

  call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    return this.#scripted.call(prompt, signal)
  }

  async *stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    const last = prompt.messages.findLast((message) => message.role === 'user')
    const request: WatchedRequest = { question: last?.text, signal, ended: undefined }
    this.requests.push(request)
    try {
      yield* this.#scripted.stream(prompt, signal)
      request.ended = 'answered'
    } catch (error) {
      request.ended = isAbortError(error) ? 'aborted' : 'failed'
      throw error
    } finally {
      // The reader stopped early (return()): the request was given up, as an abort.
      request.ended ??= 'aborted'
    }
  }
}
