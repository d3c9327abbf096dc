import type { CallAdvisor, ChatClientRequest, ChatClientResponse, StreamAdvisor } from '../advisor'

/** A call and stream advisor for tests: it logs `<name>:before` / `<name>:after` and passes through. */
export function recordingAdvisor(name: string, order: number, log: string[]): CallAdvisor & StreamAdvisor {
  return {
    name,
    order,
    async adviseCall(request, chain) {
      log.push(`${name}:before`)
      const response = await chain.nextCall(request)
      log.push(`${name}:after`)
      return response
    },
    async *adviseStream(request: ChatClientRequest, chain): AsyncGenerator<ChatClientResponse> {
      log.push(`${name}:before`)
      yield* chain.nextStream(request)
      log.push(`${name}:after`)
    },
  }
}

export function request(text = 'hi'): ChatClientRequest {
  return { prompt: { messages: [{ role: 'user', text }], options: {} }, context: {} }
}
