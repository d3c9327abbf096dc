import { describe, expect, it } from 'vitest'
import { ChatClient } from '../client'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { TraceCollector } from '../trace'
import { ObserverAdvisor } from '../advisors'
import { AnthropicChatModel } from './anthropic'
import { OpenAIChatModel } from './openai'

/** Sends each request to the next URL: recorded responses served over real HTTP by the test server. */
function replaying(...paths: string[]): typeof fetch {
  let next = 0
  return (_url, init) => fetch(paths[next++] ?? '/__replay/none', init)
}

const getCapital = (log: string[]) =>
  defineTool({
    name: 'get_capital',
    description: 'The capital of a country',
    inputSchema: { type: 'object', properties: { country: { type: 'string' } }, required: ['country'] },
    execute: ({ country }) => (log.push(country), 'London'),
  })

describe('remote models in Chromium', () => {
  it('runs a tool conversation over a recorded OpenAI stream and a recorded answer', async () => {
    const log: string[] = []
    const collector = new TraceCollector()
    const model = new OpenAIChatModel({
      model: 'gpt-4o-mini',
      apiKey: 'sk-browser-0123456789abcdef',
      fetch: replaying(
        '/__replay/openai/chat-stream-tool-call-role-with-tool.sse',
        '/__replay/openrouter/chat-stream-usage.sse',
      ),
    })
    const client = ChatClient.builder(model)
      .defaultTools(getCapital(log))
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    const answer = (await collect(client.prompt('Capital of the UK?').stream().content())).join('')
    expect(answer).toBe('test response')
    expect(log).toEqual(['UK'])
    expect(collector.ofType('tool-end')[0]).toMatchObject({
      toolCall: { id: 'call_ZR5UUuTt3pf61kjwAJIYdVMj' },
      result: 'London',
    })
    expect(collector.ofType('run-end')[0]).toMatchObject({ status: 'ok', rounds: 2 })
    expect(JSON.stringify(collector.events)).not.toContain('sk-browser-0123456789abcdef')
  })

  it('streams an Anthropic answer with parallel tool calls', async () => {
    const model = new AnthropicChatModel({
      model: 'claude',
      fetch: replaying('/__replay/anthropic/messages-stream-tool-use-parallel.sse'),
    })
    const chunks = await collect(model.stream({ messages: [{ role: 'user', text: 'q' }], options: {} }))
    expect(chunks.map((chunk) => chunk.results[0]!.output.text).join('')).toBe(
      "I'll retrieve the secrets for both passwords you provided.",
    )
    expect(chunks.at(-1)!.results[0]!.output.toolCalls.map((call) => call.arguments)).toEqual([
      '{"password": "mellon"}',
      '{"password": "radiance"}',
    ])
  })

  it('reports an HTTP error from the server clearly', async () => {
    const model = new OpenAIChatModel({
      model: 'gpt-4o',
      fetch: replaying('/__replay/openai/error-401-invalid-api-key.json'),
    })
    await expect(model.call({ messages: [{ role: 'user', text: 'q' }], options: {} })).rejects.toMatchObject({
      name: 'ChatModelError',
      status: 401,
      message: expect.stringMatching(/Check the API key/) as string,
    })
  })
})
