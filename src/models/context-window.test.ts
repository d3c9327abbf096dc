import { describe, expect, it } from 'vitest'
import { AnthropicChatModel } from './anthropic'
import { OpenAIChatModel } from './openai'
import { OpenAIResponsesChatModel } from './openai-responses'

// Remote APIs do not say a model's window: the app does, and sessions compact to fit it.

describe('the window of a remote model', () => {
  it.each([
    ['OpenAI', (window?: number) => new OpenAIChatModel({ model: 'gpt-4o-mini', contextWindow: window })],
    [
      'OpenAI Responses',
      (window?: number) => new OpenAIResponsesChatModel({ model: 'gpt-5-mini', contextWindow: window }),
    ],
    ['Anthropic', (window?: number) => new AnthropicChatModel({ model: 'claude-sonnet-4-5', contextWindow: window })],
  ])('%s: the contextWindow option, none without it, and no count (tokens are estimated)', (_name, make) => {
    expect(make(128_000).contextWindow).toBe(128_000)
    expect(make().contextWindow).toBeUndefined()
    expect('countTokens' in make(128_000)).toBe(false)
  })
})
