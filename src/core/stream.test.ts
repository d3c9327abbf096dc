import { describe, expect, it } from 'vitest'
import type { ChatResponse } from './model'
import { ChatResponseAggregator } from './stream'

const chunk = (
  text: string,
  extra: Partial<ChatResponse['results'][0]['output']> = {},
  meta: Record<string, unknown> = {},
  responseMeta: Record<string, unknown> = {},
): ChatResponse => ({
  results: [{ output: { role: 'assistant', text, toolCalls: [], ...extra }, metadata: meta }],
  metadata: responseMeta,
})

describe('ChatResponseAggregator', () => {
  it('joins text deltas and keeps the last finish reason and usage', () => {
    const aggregator = new ChatResponseAggregator()
    aggregator.add(chunk('Hel', {}, {}, { model: 'm' }))
    aggregator.add(
      chunk('lo', {}, { finishReason: 'stop' }, { usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } }),
    )
    expect(aggregator.result()).toEqual({
      results: [{ output: { role: 'assistant', text: 'Hello', toolCalls: [] }, metadata: { finishReason: 'stop' } }],
      metadata: { model: 'm', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } },
    })
    expect(aggregator.chunkCount).toBe(2)
  })

  it('collects tool calls from every chunk in order', () => {
    const aggregator = new ChatResponseAggregator()
    aggregator.add(chunk('', { toolCalls: [{ id: '1', name: 'a', arguments: '{}' }] }))
    aggregator.add(chunk('', { toolCalls: [{ id: '2', name: 'b', arguments: '{}' }] }))
    expect(aggregator.result().results[0]!.output.toolCalls.map((c) => c.id)).toEqual(['1', '2'])
  })

  it('does not let an undefined value erase an earlier one', () => {
    const aggregator = new ChatResponseAggregator()
    aggregator.add(chunk('', {}, { finishReason: 'stop' }, { id: 'r1' }))
    aggregator.add(chunk('', {}, { finishReason: undefined }, { id: undefined }))
    const result = aggregator.result()
    expect(result.metadata.id).toBe('r1')
    expect(result.results[0]!.metadata.finishReason).toBe('stop')
  })
})
