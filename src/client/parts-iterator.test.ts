import { describe, expect, it } from 'vitest'
import type { AnyAdvisor, ChainEvent, ChainEventListener, ChatClientResponse } from '../core'
import { partsStream } from './parts-iterator'

describe('partsStream', () => {
  it('hands on an event reported while the source is being read, before the source answers', async () => {
    let answer: (() => void) | undefined
    // A source whose read starts a tool at once (a round's tools run in the tick the round ends)
    // and answers only when the tool is done.
    const open = (extra: AnyAdvisor[]): AsyncIterable<ChatClientResponse> => ({
      [Symbol.asyncIterator]: () => ({
        next: () => {
          const started: ChainEvent = {
            type: 'tool-execution-start',
            round: 1,
            toolCall: { id: 'c1', name: 'lookup', arguments: '{}' },
          }
          ;(extra[0] as unknown as ChainEventListener).onChainEvent(started, {}, 'test')
          return new Promise((resolve) => (answer = () => resolve({ done: true, value: undefined })))
        },
      }),
    })
    const parts = partsStream(open)
    expect(await parts.next()).toEqual({
      done: false,
      value: { type: 'tool-start', round: 1, id: 'c1', name: 'lookup' },
    })
    answer!()
    expect(await parts.next()).toEqual({ done: false, value: { type: 'finish' } })
  })
})
