import type { CallAdvisor, StreamAdvisor } from 'advisor-chain'

export interface ChainLogEntry {
  advisor: string
  order: number
  phase: 'before' | 'after'
  messages: number
}

/** An advisor that reports when the request passes it on the way in and the response on the way out. */
export function loggingAdvisor(
  name: string,
  order: number,
  log: (entry: ChainLogEntry) => void,
): CallAdvisor & StreamAdvisor {
  return {
    name,
    order,
    async adviseCall(request, chain) {
      log({ advisor: name, order, phase: 'before', messages: request.prompt.messages.length })
      const response = await chain.nextCall(request)
      log({ advisor: name, order, phase: 'after', messages: request.prompt.messages.length })
      return response
    },
    async *adviseStream(request, chain) {
      log({ advisor: name, order, phase: 'before', messages: request.prompt.messages.length })
      yield* chain.nextStream(request)
      log({ advisor: name, order, phase: 'after', messages: request.prompt.messages.length })
    },
  }
}
