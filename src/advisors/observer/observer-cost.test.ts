import { describe, expect, it } from 'vitest'
import type { ChatModel } from '../../core'
import { collect } from '../../core/testing/collect'
import { ChatClient } from '../../client'
import { ChatModelError, ScriptedChatModel, type ScriptStep } from '../../models'
import { TraceCollector, type TraceEventOf, type Pricing } from '../../trace'
import { EscalationAdvisor } from '../escalation'
import { ObserverAdvisor } from './observer'

const PRICING: Pricing = {
  'gpt-remote': { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
  'local-model': { inputPerMTok: 0, outputPerMTok: 0 },
}

function responses(trace: TraceCollector): TraceEventOf<'model-response'>[] {
  return trace.events.filter((event) => event.type === 'model-response')
}

function observed(model: ChatModel, pricing: Pricing = PRICING, ...advisors: EscalationAdvisor[]) {
  const trace = new TraceCollector()
  const client = ChatClient.builder(model)
    .defaultAdvisors(...advisors, new ObserverAdvisor({ sink: trace, pricing, performanceTrack: false }))
    .build()
  return { client, trace }
}

const usage = { promptTokens: 1000, completionTokens: 500, totalTokens: 1500, cacheReadTokens: 200 }

describe('ObserverAdvisor with pricing', () => {
  it('puts the cost of the reported usage on each model response, cached input at its own price', async () => {
    const { client, trace } = observed(new ScriptedChatModel([{ text: 'hi', usage }], { model: 'gpt-remote' }))
    await client.prompt('q').call().content()
    // 800 input × $2 + 200 cached × $0.50 + 500 output × $8, per million tokens.
    expect(responses(trace)[0]!.costUsd).toBeCloseTo(0.0057, 10)
    expect(responses(trace)[0]!.costEstimated).toBeUndefined()
  })

  it('costs a streamed response as a called one', async () => {
    const { client, trace } = observed(new ScriptedChatModel([{ text: 'a b', usage }], { model: 'gpt-remote' }))
    await collect(client.prompt('q').stream().content())
    expect(responses(trace)[0]!.costUsd).toBeCloseTo(0.0057, 10)
  })

  it('shows no cost, never 0, for a model without a price', async () => {
    const { client, trace } = observed(new ScriptedChatModel([{ text: 'hi', usage }], { model: 'unpriced' }))
    await client.prompt('q').call().content()
    expect(responses(trace)[0]).not.toHaveProperty('costUsd')
  })

  it('marks a cost from usage the provider did not report as estimated', async () => {
    const { client, trace } = observed(new ScriptedChatModel(['12345678'], { model: 'gpt-remote' }))
    await client.prompt('abcd').call().content()
    const response = responses(trace)[0]!
    expect(response.usage).toBeUndefined()
    expect(response.costEstimated).toBe(true)
    // 'abcd' is one token in, '12345678' two tokens out.
    expect(response.estimatedUsage).toEqual({ promptTokens: 1, completionTokens: 2, totalTokens: 3 })
    expect(response.costUsd).toBeCloseTo((1 * 2 + 2 * 8) / 1_000_000, 12)
  })

  it("prices the local rounds at the escalation fallback's price too", async () => {
    const fallback = new ScriptedChatModel([{ text: 'remote', usage }], { model: 'gpt-remote' })
    const local = new ScriptedChatModel(
      [
        { text: 'local', usage: { promptTokens: 100, completionTokens: 10, totalTokens: 110 } },
        {
          error: new ChatModelError('no GPU', {
            provider: 'webllm',
            code: 'WebGPUNotAvailableError',
            retryable: false,
          }),
        },
      ] satisfies ScriptStep[],
      { model: 'local-model' },
    )
    const { client, trace } = observed(local, PRICING, EscalationAdvisor.builder(fallback).build())
    await client.prompt('one').call().content()
    await client.prompt('two').call().content()
    const [answeredLocally, escalated] = responses(trace)
    expect(answeredLocally).toMatchObject({ model: 'local-model', costUsd: 0 })
    expect(answeredLocally!.fallbackCostUsd).toBeCloseTo((100 * 2 + 10 * 8) / 1_000_000, 12)
    expect(escalated).toMatchObject({ model: 'gpt-remote' })
    expect(escalated!.costUsd).toBeCloseTo(0.0057, 10)
    expect(escalated).not.toHaveProperty('fallbackCostUsd')
  })

  it('refuses a price that is not a number, naming the entry', () => {
    expect(
      () =>
        new ObserverAdvisor({
          sink: new TraceCollector(),
          pricing: { 'gpt-x': { inputPerMTok: 1, outputPerMTok: '3' as unknown as number } },
        }),
    ).toThrow("pricing['gpt-x'].outputPerMTok must be a finite number ≥ 0 (US dollars per million tokens), got 3")
  })
})
