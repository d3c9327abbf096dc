import { describe, expect, it } from 'vitest'
import { bubbleOf, interruptedBubble, STOPPED, type ChatPartView } from './chat-view'

const card = (
  id: string,
  state: 'streaming-arguments' | 'awaiting-approval' | 'running' | 'done' | 'error',
): ChatPartView => ({
  type: 'tool-call',
  id,
  name: 'weather',
  arguments: '{}',
  state,
  ...(state === 'done' ? { result: 'sunny' } : {}),
})

describe('interruptedBubble', () => {
  it('closes every tool call that had not finished with the reason, and leaves finished ones as they were', () => {
    const bubble = bubbleOf({ id: 'a', role: 'assistant', pending: true }, [
      { type: 'text', text: 'Checking.' },
      card('c1', 'done'),
      card('c2', 'streaming-arguments'),
      card('c3', 'awaiting-approval'),
      card('c4', 'running'),
    ])
    const stopped = interruptedBubble(bubble, STOPPED)
    expect(
      stopped.parts.map((part) => (part.type === 'tool-call' ? [part.id, part.state, part.result] : part.type)),
    ).toEqual([
      'text',
      ['c1', 'done', 'sunny'],
      ['c2', 'error', 'Stopped.'],
      ['c3', 'error', 'Stopped.'],
      ['c4', 'error', 'Stopped.'],
    ])
    expect(stopped.toolCalls.map((call) => call.status)).toEqual(['done', 'error', 'error', 'error'])
  })

  it('ends the bubble: no longer pending, the reason as its problem, its text kept', () => {
    const bubble = bubbleOf({ id: 'a', role: 'assistant', pending: true }, [{ type: 'text', text: 'Half an' }])
    expect(interruptedBubble(bubble, 'The model is overloaded')).toMatchObject({
      pending: false,
      problem: 'The model is overloaded',
      text: 'Half an',
    })
  })
})
