import { describe, expect, it } from 'vitest'
import type { StreamPart } from '../../core'
import { innermostPart, withStreamPart } from './chat-parts'
import type { ChatPartView } from './chat-view'

const fold = (events: StreamPart[]) => events.reduce<ChatPartView[]>(withStreamPart, [])
const under = (id: string, part: StreamPart): StreamPart => ({
  type: 'agent-part',
  round: 1,
  id,
  name: 'research',
  part,
})

describe("a sub-agent's parts in a bubble", () => {
  it("go under the tool card of the call that runs it, never into the bubble's text", () => {
    const parts = fold([
      { type: 'tool-call-start', round: 1, id: 'c1', name: 'research' },
      { type: 'tool-call', round: 1, id: 'c1', name: 'research', arguments: '{"task":"t"}' },
      under('c1', { type: 'text-delta', round: 1, delta: 'Look' }),
      under('c1', { type: 'text-delta', round: 1, delta: 'ing' }),
      under('c1', { type: 'tool-call-start', round: 1, id: 'w1', name: 'weather' }),
      under('c1', under('w1', { type: 'text-delta', round: 1, delta: 'deep' })),
      under('c1', { type: 'approval-requested', round: 1, id: 'w1', name: 'weather', arguments: '{}' }),
      { type: 'text-delta', round: 2, delta: 'Done' },
    ])
    expect(parts).toEqual([
      expect.objectContaining({
        type: 'tool-call',
        id: 'c1',
        state: 'running',
        agentParts: [
          { type: 'text', text: 'Looking' },
          expect.objectContaining({
            type: 'tool-call',
            id: 'w1',
            state: 'awaiting-approval',
            agentParts: [{ type: 'text', text: 'deep' }],
          }),
        ],
      }),
      { type: 'text', text: 'Done' },
    ])
  })

  it('are dropped when no card of their call is shown, and unwrap to the innermost event', () => {
    const stray = under('nobody', { type: 'text-delta', round: 1, delta: 'x' })
    const before: ChatPartView[] = [{ type: 'text', text: 'a' }]
    expect(withStreamPart(before, stray)).toBe(before)
    expect(innermostPart(under('a', under('b', { type: 'round-start', round: 3 })))).toEqual({
      type: 'round-start',
      round: 3,
    })
  })
})
