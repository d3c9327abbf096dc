import { describe, expect, it } from 'vitest'
import { ReplayChatModel } from './replay-model'
import type { Cassette } from '../trace'

const valid = (): Cassette => ({
  format: 'advisor-chain-cassette',
  version: 1,
  recordedAt: '2026-01-01T00:00:00.000Z',
  interactions: [
    {
      request: { messages: [{ role: 'user', text: 'hi' }], tools: ['echo'] },
      response: {
        text: '',
        toolCalls: [{ id: 'c1', name: 'echo', arguments: '{}' }],
        finishReason: 'tool_calls',
        usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
        chunks: ['a'],
      },
    },
  ],
})

type Loose = Record<string, unknown>
interface LooseInteraction {
  request: Loose
  response: Loose & { toolCalls: Loose[]; usage: Loose }
}

describe('ReplayChatModel validates a cassette when it is loaded', () => {
  it('accepts a well-formed cassette', () => {
    expect(new ReplayChatModel(valid()).remaining).toBe(1)
  })

  it.each<[string, (c: Loose, first: LooseInteraction, all: unknown[]) => void, string]>([
    ['a wrong version', (c) => (c['version'] = 2), 'version must be 1, got 2'],
    ['an interaction that is not an object', (_c, _first, all) => (all[0] = 'x'), 'interactions[0] must be an object'],
    [
      'a missing request',
      (_c, first) => delete (first as Partial<LooseInteraction>).request,
      'interactions[0].request must be an object',
    ],
    [
      'messages that are not an array',
      (_c, first) => (first.request['messages'] = {}),
      'interactions[0].request.messages must be an array',
    ],
    [
      'a message of no known role',
      (_c, first) => ((first.request['messages'] as unknown[])[0] = { role: 'robot', text: 'x' }),
      'interactions[0].request.messages[0] must be a system, user, assistant or tool message',
    ],
    [
      'tools that are not names',
      (_c, first) => (first.request['tools'] = [1]),
      'interactions[0].request.tools must be an array of tool names',
    ],
    [
      'a missing response',
      (_c, first) => ((first as unknown as Loose)['response'] = null),
      'interactions[0].response must be an object',
    ],
    [
      'a response text that is not a string',
      (_c, first) => (first.response['text'] = 5),
      'interactions[0].response.text must be a string',
    ],
    [
      'tool calls that are not an array',
      (_c, first) => delete (first.response as Loose)['toolCalls'],
      'interactions[0].response.toolCalls must be an array',
    ],
    [
      'tool-call arguments that are not a string',
      (_c, first) => (first.response.toolCalls[0]!['arguments'] = {}),
      'interactions[0].response.toolCalls[0].arguments must be a string',
    ],
    [
      'a finish reason that is not a string',
      (_c, first) => (first.response['finishReason'] = 1),
      'interactions[0].response.finishReason must be a string',
    ],
    [
      'chunks that are not strings',
      (_c, first) => (first.response['chunks'] = [null]),
      'interactions[0].response.chunks must be an array of strings',
    ],
    [
      'usage that is not counted',
      (_c, first) => (first.response.usage['totalTokens'] = 'many'),
      'interactions[0].response.usage.totalTokens must be a number ≥ 0',
    ],
  ])('refuses %s, naming the field', (_label, breakIt, problem) => {
    const cassette = valid() as unknown as Loose
    const all = cassette['interactions'] as unknown[]
    breakIt(cassette, all[0] as LooseInteraction, all)
    expect(() => new ReplayChatModel(cassette as unknown as Cassette)).toThrow(
      new TypeError(`Not an advisor-chain cassette: ${problem}`),
    )
  })
})
