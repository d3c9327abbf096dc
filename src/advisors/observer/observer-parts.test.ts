// The code that traces message parts loads with the first message or response that has some: a
// file of its own, so that no earlier test has loaded it.
import { describe, expect, it } from 'vitest'
import { assistantMessageOf, type ChatModel, type ChatResponse } from '../../core'
import { ChatClient } from '../../client'
import { TraceCollector } from '../../trace'
import { ObserverAdvisor } from './observer'

const interleaved = assistantMessageOf([
  { type: 'text', text: 'First this,' },
  { type: 'reasoning', text: 'then a thought,' },
  { type: 'text', text: ' then that.' },
])

const answering = (output: ChatResponse['results'][number]['output']): ChatModel => ({
  provider: 'test',
  call: () => Promise.resolve({ results: [{ output, metadata: { finishReason: 'stop' } }], metadata: {} }),
  // eslint-disable-next-line require-yield
  stream: async function* () {
    throw new Error('not used')
  },
})

describe('ObserverAdvisor, message parts', () => {
  it('records the parts of the first response that has some, in order, before the round ends', async () => {
    const collector = new TraceCollector()
    const client = ChatClient.builder(answering(interleaved))
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    const answer = await client.prompt('go').call().content()
    expect(answer).toBe('First this, then that.')
    const [response] = collector.ofType('model-response')
    expect(response!.parts).toEqual(interleaved.parts)
    expect(collector.events.map((event) => event.type)).toEqual([
      'run-start',
      'round-start',
      'model-request',
      'model-response',
      'round-end',
      'tool-loop-end',
      'run-end',
    ])
  })
})
