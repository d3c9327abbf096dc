import { describe, expect, it } from 'vitest'
import { isContextOverflow } from './context-overflow'

describe('isContextOverflow', () => {
  it.each([
    ['WebLLM', Object.assign(new Error('The conversation is longer…'), { code: 'ContextWindowSizeExceededError' })],
    ['WebLLM through a worker', 'ContextWindowSizeExceededError: Prompt tokens exceed context window size'],
    ['the Prompt API', Object.assign(new Error('larger than the window'), { code: 'quota-exceeded' })],
    ['the Prompt API, raw', new DOMException('The input is too large.', 'QuotaExceededError')],
    ['llama.cpp', Object.assign(new Error('…'), { code: 'context-full' })],
    ['llama.cpp, raw', new Error('request (1200 tokens) exceeds the available context size (1024 tokens)')],
    ['OpenAI', Object.assign(new Error('answered HTTP 400'), { code: 'context_length_exceeded' })],
    [
      'Anthropic',
      new Error(
        'Anthropic answered HTTP 400 (invalid_request_error): prompt is too long: 210000 tokens > 200000 maximum',
      ),
    ],
    ['a wrapped one', new Error('turn failed', { cause: Object.assign(new Error('x'), { code: 'context-full' }) })],
  ])('recognises %s', (_engine, error) => {
    expect(isContextOverflow(error)).toBe(true)
  })

  it.each([
    ['a network failure', new TypeError('Failed to fetch')],
    ['a rate limit', Object.assign(new Error('slow down'), { code: 'rate_limit_exceeded' })],
    ['an abort', new DOMException('stopped', 'AbortError')],
    ['nothing', undefined],
  ])('leaves %s alone', (_what, error) => {
    expect(isContextOverflow(error)).toBe(false)
  })
})
