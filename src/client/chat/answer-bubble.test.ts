import { describe, expect, it } from 'vitest'
import type { StreamPart } from '../../core'
import { AnswerBubble } from './answer-bubble'
import { withStreamPart } from './chat-parts'
import { bubbleOf, toViews, type ChatMessageView } from './chat-view'

const call = (id: string, name = 'weather'): StreamPart[] => [
  { type: 'tool-call-start', round: 1, id, name },
  { type: 'tool-call-delta', round: 1, id, argumentsDelta: '{"city":' },
  { type: 'tool-call-delta', round: 1, id, argumentsDelta: '"Oslo"}' },
  { type: 'tool-call', round: 1, id, name, arguments: '{"city":"Oslo"}' },
]

const events: StreamPart[] = [
  { type: 'round-start', round: 1 },
  { type: 'reasoning-delta', round: 1, delta: 'Think' },
  { type: 'reasoning-delta', round: 1, delta: 'ing.' },
  { type: 'text-delta', round: 1, delta: 'Let me ' },
  { type: 'text-delta', round: 1, delta: 'check.' },
  ...call('w1'),
  ...call('w2'),
  { type: 'tool-call-start', round: 1, id: 'w1', name: 'weather' },
  { type: 'approval-requested', round: 1, id: 'w1', name: 'weather', arguments: '{"city":"Oslo"}' },
  { type: 'approval-decided', round: 1, id: 'w1', decision: 'edit', detail: '{"city":"Bergen"}' },
  { type: 'approval-requested', round: 1, id: 'w2', name: 'weather', arguments: '{"city":"Oslo"}' },
  { type: 'approval-decided', round: 1, id: 'w2', decision: 'reject' },
  { type: 'tool-start', round: 1, id: 'w1', name: 'weather' },
  { type: 'agent-part', round: 1, id: 'w1', name: 'weather', part: { type: 'text-delta', round: 1, delta: 'sub' } },
  { type: 'tool-result', round: 1, id: 'w1', name: 'weather', result: 'rain', isError: false },
  { type: 'tool-result', round: 1, id: 'w2', name: 'weather', result: 'Not approved', isError: true },
  { type: 'tool-result', round: 1, id: 'nobody', name: 'weather', result: 'x', isError: false },
  { type: 'round-start', round: 2 },
  { type: 'reasoning-delta', round: 2, delta: 'More.' },
  { type: 'text-delta', round: 2, delta: 'Rain in ' },
  { type: 'text-delta', round: 2, delta: 'Bergen.' },
  { type: 'finish', finishReason: 'stop' },
]

/** What `withStreamPart` and `bubbleOf` make of the bubble after each event: the whole bubble built again. */
function rebuilt(start: ChatMessageView, stream: StreamPart[]): ChatMessageView[] {
  let parts = start.parts
  return stream.map((event) => bubbleOf(start, (parts = withStreamPart(parts, event))))
}

describe('AnswerBubble', () => {
  it('after every event, the bubble that withStreamPart and bubbleOf would build again from all its parts', () => {
    const start = bubbleOf({ id: 'a', role: 'assistant', pending: true }, [])
    const bubble = new AnswerBubble(start)
    const expected = rebuilt(start, events)
    events.forEach((event, index) => {
      bubble.apply(event)
      expect(bubble.bubble).toEqual(expected[index])
    })
  })

  it('goes on from a restored bubble (a resumed turn): its calls are found by id', () => {
    const [, start] = toViews([
      { role: 'user', text: 'Weather?' },
      { role: 'assistant', text: 'Checking.', toolCalls: [{ id: 'w1', name: 'weather', arguments: '{}' }] },
    ])
    const resumed: StreamPart[] = [
      { type: 'tool-start', round: 1, id: 'w1', name: 'weather' },
      { type: 'tool-result', round: 1, id: 'w1', name: 'weather', result: 'rain', isError: false },
      { type: 'text-delta', round: 2, delta: 'Rain.' },
    ]
    const bubble = new AnswerBubble(start!)
    const expected = rebuilt(start!, resumed)
    resumed.forEach((event, index) => {
      bubble.apply(event)
      expect(bubble.bubble).toEqual(expected[index])
    })
  })

  it('an event that changes nothing leaves the bubble as it was', () => {
    const bubble = new AnswerBubble(bubbleOf({ id: 'a', role: 'assistant' }, []))
    const before = bubble.bubble
    expect(bubble.apply({ type: 'tool-result', round: 1, id: 'x', name: 'n', result: 'r', isError: false })).toBe(false)
    expect(bubble.apply({ type: 'round-start', round: 2 })).toBe(false)
    expect(bubble.bubble).toBe(before)
  })
})
