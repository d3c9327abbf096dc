import { describe, expect, it } from 'vitest'
import type { ChatClientResponse } from './advisor'
import type { ChatResponse } from './model'
import { streamStage } from './stream-stage'

const chunk = (text: string): ChatClientResponse => ({
  chatResponse: {
    results: [{ output: { role: 'assistant', text, toolCalls: [] }, metadata: {} }],
    metadata: {},
  } satisfies ChatResponse,
  context: {},
})

async function* texts(...values: string[]) {
  for (const value of values) yield chunk(value)
}

describe('a stage that starts its source over', () => {
  it('gives its readers, through a borrowing stage between, the aggregate of the new source only', async () => {
    // The innermost layer reads one source, then starts over with another (a retry, an escalation).
    const restarting = streamStage<ChatClientResponse>({
      passesOn: 'unchanged',
      aggregates: true,
      open: () => texts('half ', 'an answer'),
      end: (aggregate) =>
        aggregate?.results[0]?.output.text === 'half an answer' ? { source: texts('the whole ', 'answer') } : undefined,
    })
    const between = streamStage<ChatClientResponse>({ passesOn: 'unchanged', aggregates: true, open: () => restarting })
    let seen: string | undefined
    const reader = streamStage<ChatClientResponse>({
      aggregates: true,
      open: () => between,
      end: (aggregate) => void (seen = aggregate?.results[0]?.output.text),
    })
    for await (const _ of reader);
    expect(seen).toBe('the whole answer')
  })
})
