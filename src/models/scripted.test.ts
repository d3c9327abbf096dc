import { describe, expect, it } from 'vitest'
import { aggregateChunks } from '../core'
import { ScriptedChatModel } from './scripted'

const prompt = { messages: [{ role: 'user' as const, text: 'hi' }], options: {} }

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = []
  for await (const item of iterable) items.push(item)
  return items
}

describe('ScriptedChatModel', () => {
  it('replays its replies in order and records every prompt', async () => {
    const model = new ScriptedChatModel(['one', { text: 'two' }])
    expect((await model.call(prompt)).results[0]!.output.text).toBe('one')
    expect((await model.call(prompt)).results[0]!.output.text).toBe('two')
    expect(model.prompts).toHaveLength(2)
    expect(model.remaining).toBe(0)
  })

  it('says which call had no reply when the script runs out', async () => {
    await expect(new ScriptedChatModel([]).call(prompt)).rejects.toThrow(/no reply for model call #1/)
  })

  it('gives tool calls stable ids and JSON-encodes object arguments', async () => {
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'add', arguments: { a: 1 } }, { name: 'now' }] }])
    const response = await model.call(prompt)
    expect(response.results[0]!.output.toolCalls).toEqual([
      { id: 'call_0_0', name: 'add', arguments: '{"a":1}' },
      { id: 'call_0_1', name: 'now', arguments: '{}' },
    ])
    expect(response.results[0]!.metadata.finishReason).toBe('tool_calls')
  })

  it('computes a reply from the prompt with a script function', async () => {
    const model = new ScriptedChatModel((p, turn) => `${turn}:${p.messages.length}`)
    expect((await model.call(prompt)).results[0]!.output.text).toBe('0:1')
    expect((await model.call(prompt)).results[0]!.output.text).toBe('1:1')
  })

  it('streams text deltas, then tool calls whole in one last chunk with usage', async () => {
    const usage = { promptTokens: 1, completionTokens: 2, totalTokens: 3 }
    const model = new ScriptedChatModel([{ text: 'let me check', toolCalls: [{ name: 'now' }], usage }])
    const chunks = await collect(model.stream(prompt))
    expect(chunks.map((c) => c.results[0]!.output.text)).toEqual(['let ', 'me ', 'check', ''])
    expect(chunks.at(-1)!.results[0]!.output.toolCalls).toHaveLength(1)
    expect(chunks.at(-1)!.metadata.usage).toEqual(usage)
    expect(chunks.slice(0, -1).every((c) => c.metadata.usage === undefined)).toBe(true)
  })

  it('streams the same response a call returns, once aggregated', async () => {
    const reply = { text: 'a b c', usage: { promptTokens: 1, completionTokens: 3, totalTokens: 4 } }
    const called = await new ScriptedChatModel([reply]).call(prompt)
    const streamed = aggregateChunks(await collect(new ScriptedChatModel([reply]).stream(prompt)))
    expect(streamed).toEqual(called)
  })

  it('records a copy of the prompt, not the live arrays', async () => {
    const messages = [{ role: 'user' as const, text: 'hi' }]
    const model = new ScriptedChatModel(['ok'])
    await model.call({ messages, options: {} })
    messages.push({ role: 'user', text: 'later' })
    expect(model.prompts[0]!.messages).toHaveLength(1)
  })
})
