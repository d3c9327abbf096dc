import { describe, expect, it } from 'vitest'
import { ChatClient } from '../client'
import type { UserMessage } from '../core'
import { ScriptedChatModel, type ScriptFunction } from '../models'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { TraceCollector } from '../trace'
import { ObserverAdvisor } from './observer/observer'
import { LoopBudgetAdvisor } from './loop-budget'

const search = defineTool({
  name: 'search',
  description: 'Searches',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
  execute: ({ q }) => `results for ${q}`,
})

/** A model that keeps searching while it has tools, and answers when it has none. */
const eagerModel =
  (usagePerCall = 0): ScriptFunction =>
  (prompt, turn) =>
    prompt.options.tools?.length
      ? {
          toolCalls: [{ name: 'search', arguments: { q: `q${turn}` } }],
          ...(usagePerCall
            ? { usage: { promptTokens: usagePerCall, completionTokens: 0, totalTokens: usagePerCall } }
            : {}),
        }
      : { text: 'Best answer with what I have.', chunks: ['Best answer ', 'with what I have.'] }

const clientWith = (model: ScriptedChatModel, budget: LoopBudgetAdvisor, collector = new TraceCollector()) =>
  ChatClient.builder(model)
    .defaultTools(search)
    .defaultAdvisors(budget, new ObserverAdvisor({ sink: collector }))
    .build()

describe('LoopBudgetAdvisor', () => {
  it('makes the last allowed round a call without tools that answers, marked with the reason', async () => {
    const model = new ScriptedChatModel(eagerModel())
    const response = await clientWith(model, LoopBudgetAdvisor.builder().maxRounds(3).build())
      .prompt('find it')
      .call()
      .chatResponse()
    expect(model.prompts).toHaveLength(3)
    expect(model.prompts[2]!.options.tools).toBeUndefined()
    expect((model.prompts[2]!.messages.at(-1) as UserMessage).text).toMatch(
      /round budget .* used up. Do not call any tools/,
    )
    expect(response?.results[0]?.output.text).toBe('Best answer with what I have.')
    expect(response?.metadata['budgetExceeded']).toBe('rounds')
  })

  it('stops at a token budget summed over rounds', async () => {
    const model = new ScriptedChatModel(eagerModel(400))
    const response = await clientWith(model, LoopBudgetAdvisor.builder().maxTotalTokens(1000).build())
      .prompt('q')
      .call()
      .chatResponse()
    expect(model.prompts).toHaveLength(4)
    expect(response?.metadata['budgetExceeded']).toBe('tokens')
  })

  it('stops at a wall-clock budget', async () => {
    const model = new ScriptedChatModel((prompt, turn) => ({ ...(eagerModel()(prompt, turn) as object), delayMs: 15 }))
    const response = await clientWith(model, LoopBudgetAdvisor.builder().maxDurationMs(20).build())
      .prompt('q')
      .call()
      .chatResponse()
    expect(model.prompts.length).toBeLessThanOrEqual(3)
    expect(response?.metadata['budgetExceeded']).toBe('time')
  })

  it('can stop without a last call', async () => {
    const model = new ScriptedChatModel(eagerModel())
    const response = await clientWith(model, LoopBudgetAdvisor.builder().maxRounds(2).onExceeded('stop').build())
      .prompt('q')
      .call()
      .chatResponse()
    expect(model.prompts).toHaveLength(1)
    expect(response?.results[0]).toMatchObject({
      output: { text: 'Stopped: the rounds budget of this request is used up.' },
      metadata: { finishReason: 'budgetExceeded' },
    })
  })

  it('works on the stream path and reports the budget to observers', async () => {
    const collector = new TraceCollector()
    const model = new ScriptedChatModel(eagerModel())
    const text = (
      await collect(
        clientWith(model, LoopBudgetAdvisor.builder().maxRounds(2).build(), collector).prompt('q').stream().content(),
      )
    ).join('')
    expect(text).toBe('Best answer with what I have.')
    expect(model.prompts).toHaveLength(2)
    expect(collector.ofType('note')[0]).toMatchObject({ message: 'budget reached: rounds', round: 2 })
  })

  it('refuses a budget that is not positive', () => {
    expect(() => LoopBudgetAdvisor.builder().maxRounds(0).build()).toThrow('maxRounds must be a positive number, got 0')
  })
})
