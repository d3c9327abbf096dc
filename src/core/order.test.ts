import { describe, expect, it } from 'vitest'
import { HIGHEST_PRECEDENCE, LOWEST_PRECEDENCE, type ChatClientResponse } from './advisor'
import { AdvisorChain } from './chain'
import { modelCallAdvisor, modelStreamAdvisor } from './terminal'
import type { ChatModel, ChatResponse } from './model'
import { recordingAdvisor, request } from './testing/recording-advisor'

const answer: ChatResponse = { results: [], metadata: {} }
const model: ChatModel = {
  provider: 'test',
  call: () => Promise.resolve(answer),
  async *stream() {
    yield answer
  },
}

describe('advisor orders', () => {
  it.each([
    ['LOWEST_PRECEDENCE', LOWEST_PRECEDENCE],
    ['LOWEST_PRECEDENCE + 1', LOWEST_PRECEDENCE + 1],
    ['Number.MAX_SAFE_INTEGER', Number.MAX_SAFE_INTEGER],
    ['Number.MAX_VALUE', Number.MAX_VALUE],
    ['Infinity', Infinity],
  ])('runs an advisor of order %s before the model call', async (_label, order) => {
    const log: string[] = []
    const chain = AdvisorChain.of([modelCallAdvisor(model), recordingAdvisor('late', order, log)])
    expect(chain.callAdvisors.map((a) => a.name)).toEqual(['late', 'call'])
    const response: ChatClientResponse = await chain.nextCall(request())
    expect(response.chatResponse).toBe(answer)
    expect(log).toEqual(['late:before', 'late:after'])
  })

  it('keeps the stream terminal last too', () => {
    const chain = AdvisorChain.of([modelStreamAdvisor(model), recordingAdvisor('late', Infinity, [])])
    expect(chain.streamAdvisors.map((a) => a.name)).toEqual(['late', 'stream'])
  })

  it('sorts infinite and huge orders among the others without scrambling them', () => {
    const log: string[] = []
    const chain = AdvisorChain.of([
      recordingAdvisor('inf', Infinity, log),
      recordingAdvisor('max', Number.MAX_SAFE_INTEGER, log),
      modelCallAdvisor(model),
      recordingAdvisor('inf2', Infinity, log),
      recordingAdvisor('neg-inf', -Infinity, log),
      recordingAdvisor('high', HIGHEST_PRECEDENCE, log),
      recordingAdvisor('zero', 0, log),
    ])
    expect(chain.callAdvisors.map((a) => a.name)).toEqual(['neg-inf', 'high', 'zero', 'max', 'inf', 'inf2', 'call'])
  })

  it('does not treat a user advisor named call as the terminal', () => {
    const log: string[] = []
    const chain = AdvisorChain.of([modelCallAdvisor(model), recordingAdvisor('call', Infinity, log)])
    expect(chain.callAdvisors.at(-1)).not.toBe(chain.callAdvisors[0])
    expect(chain.callAdvisors[0]!.order).toBe(Infinity)
  })

  it.each([NaN, '5', undefined])('refuses an order of %s with a TypeError naming the advisor', (order) => {
    const advisor = { ...recordingAdvisor('odd', 0, []), order: order as number }
    expect(() => AdvisorChain.of([advisor])).toThrow(TypeError)
    expect(() => AdvisorChain.of([advisor])).toThrow(`Advisor 'odd' has no numeric order (got ${String(order)})`)
  })
})
