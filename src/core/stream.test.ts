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

  it('gives each reader a response of its own, with the same content, also while chunks keep coming', () => {
    const aggregator = new ChatResponseAggregator()
    aggregator.add(
      chunk('Hel', { toolCalls: [{ id: '1', name: 'a', arguments: '{}' }] }, { finishReason: 'tool_calls' }),
    )
    aggregator.add(chunk('lo'))
    const first = aggregator.result()
    const second = aggregator.result()
    expect(second).toEqual(first)
    first.results[0]!.output.toolCalls.push({ id: '2', name: 'b', arguments: '{}' })
    first.results[0]!.metadata.finishReason = 'changed'
    expect(second.results[0]!.output.toolCalls).toHaveLength(1)
    expect(aggregator.result().results[0]!.metadata.finishReason).toBe('tool_calls')
    aggregator.add(chunk(' world'))
    expect(aggregator.result().results[0]!.output.text).toBe('Hello world')
  })
})
