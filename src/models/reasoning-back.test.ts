import { describe, expect, it } from 'vitest'
import { ChatClient } from '../client'
import { HIGHEST_PRECEDENCE, assistantMessage, toolResponseMessage, userMessage, type Prompt } from '../core'
import { MessageChatMemoryAdvisor } from '../advisors/memory'
import { MessageWindowChatMemory } from '../memory'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { OpenAIChatModel } from './openai'
import { fakeFetch, responseOf, written } from './testing/fixtures'

// DeepSeek's thinking mode with tools: the reasoning of an assistant message with tool calls must go
// back as `reasoning_content` in every later request, or the API answers 400. It goes back to the
// server that sent it that way, and to no other (Groq, Cerebras and strict proxies refuse the field).

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const,
  execute: ({ city }) => `rain in ${city}`,
})

const REASONING = 'The user asks for the weather in Hangzhou; I should call the weather tool.'

function answer(text: string): Response {
  const chunk = { id: 'a', model: 'm', choices: [{ index: 0, delta: { content: text }, finish_reason: 'stop' }] }
  const body = `data: ${JSON.stringify(chunk)}\n\ndata: [DONE]\n\n`
  return responseOf({
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: new TextEncoder().encode(body),
  })
}

function wholeAnswer(text: string): Response {
  const body = { id: 'a', model: 'm', choices: [{ index: 0, message: { content: text }, finish_reason: 'stop' }] }
  const bytes = new TextEncoder().encode(JSON.stringify(body))
  return responseOf({ status: 200, headers: { 'content-type': 'application/json' }, body: bytes })
}

type Sent = Record<string, unknown>
const assistantOf = (body: Record<string, unknown>) =>
  (body['messages'] as Sent[]).find((message) => message['role'] === 'assistant')!
const assistantsOf = (body: Record<string, unknown>) =>
  (body['messages'] as Sent[]).filter((message) => message['role'] === 'assistant')

/** A DeepSeek thinking-mode round that calls `weather` for a city, its reasoning as `reasoning_content` deltas. */
function thinkingCall(id: string, city: string, reasoning: string): Response {
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({ id, model: 'deepseek-reasoner', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const call = { index: 0, id: `call_${id}`, type: 'function', function: { name: 'weather', arguments: '' } }
  const body =
    chunk({ role: 'assistant', reasoning_content: reasoning.slice(0, 5) }, null) +
    chunk({ reasoning_content: reasoning.slice(5) }, null) +
    chunk({ tool_calls: [call] }, null) +
    chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ city }) } }] }, null) +
    chunk({}, 'tool_calls') +
    'data: [DONE]\n\n'
  return responseOf({ status: 200, headers: {}, body: new TextEncoder().encode(body) })
}

describe('DeepSeek thinking mode with tools: reasoning_content goes back with the calls', () => {
  for (const mode of ['streamed', 'whole'] as const) {
    it(`${mode}: the second round sends the tool-calling message with its reasoning_content`, async () => {
      const first = written('quirks', `deepseek-thinking-tool-call.${mode === 'streamed' ? 'sse' : 'json'}`)
      const { fetch, calls } = fakeFetch(
        responseOf(first),
        mode === 'streamed' ? answer('Rain in Hangzhou.') : wholeAnswer('Rain in Hangzhou.'),
      )
      const model = new OpenAIChatModel({ baseURL: 'https://api.deepseek.com/v1', model: 'deepseek-reasoner', fetch })
      const spec = ChatClient.builder(model).defaultTools(weather).build().prompt('Weather in Hangzhou?')
      const text = mode === 'streamed' ? (await collect(spec.stream().content())).join('') : await spec.call().content()
      expect(text).toBe('Rain in Hangzhou.')
      expect(assistantOf(calls[1]!.body)).toEqual({
        role: 'assistant',
        content: null,
        reasoning_content: REASONING,
        tool_calls: [
          {
            id: 'call_00_Hk2XbQ7pW1',
            type: 'function',
            function: { name: 'weather', arguments: '{"city": "Hangzhou"}' },
          },
        ],
      })
    })
  }

  it('sends an empty reasoning_content back when the server sent the field empty', async () => {
    const chunk = (delta: unknown, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'd', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    const call = { index: 0, id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }
    const body =
      chunk({ reasoning_content: '', tool_calls: [call] }, null) + chunk({}, 'tool_calls') + 'data: [DONE]\n\n'
    const { fetch, calls } = fakeFetch(
      responseOf({ status: 200, headers: {}, body: new TextEncoder().encode(body) }),
      answer('Rain.'),
    )
    const model = new OpenAIChatModel({ baseURL: 'https://api.deepseek.com/v1', model: 'deepseek-chat', fetch })
    await collect(ChatClient.builder(model).defaultTools(weather).build().prompt('Oslo?').stream().content())
    expect(assistantOf(calls[1]!.body)['reasoning_content']).toBe('')
  })

  it('never sends reasoning that came as `reasoning` (Groq, OpenRouter, Ollama) back', async () => {
    const chunk = (delta: unknown, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'g', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    const call = { index: 0, id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }
    const body =
      chunk({ reasoning: 'Call the tool.', tool_calls: [call] }, null) + chunk({}, 'tool_calls') + 'data: [DONE]\n\n'
    const { fetch, calls } = fakeFetch(
      responseOf({ status: 200, headers: {}, body: new TextEncoder().encode(body) }),
      answer('Rain.'),
    )
    const model = new OpenAIChatModel({ baseURL: 'https://api.groq.com/openai/v1', model: 'openai/gpt-oss-20b', fetch })
    await collect(ChatClient.builder(model).defaultTools(weather).build().prompt('Oslo?').stream().content())
    expect(Object.keys(assistantOf(calls[1]!.body)).sort()).toEqual(['content', 'role', 'tool_calls'])
  })

  it('sends the reasoning_content of one server to no other (a conversation moved to another model)', async () => {
    const { fetch, calls } = fakeFetch(
      responseOf(written('quirks', 'deepseek-thinking-tool-call.sse')),
      answer('Rain.'),
    )
    const deepseek = new OpenAIChatModel({ baseURL: 'https://api.deepseek.com/v1', model: 'deepseek-reasoner', fetch })
    const chunks = await collect(deepseek.stream({ messages: [userMessage('Weather?')], options: {} }))
    const calling = chunks.at(-1)!.results[0]!.output
    const history: Prompt = {
      messages: [
        userMessage('Weather?'),
        { ...assistantMessage('', calling.toolCalls), reasoning: REASONING, metadata: calling.metadata! },
        toolResponseMessage([{ id: calling.toolCalls[0]!.id, name: 'weather', responseData: 'rain' }]),
      ],
      options: {},
    }
    const other = new OpenAIChatModel({ baseURL: 'https://api.openai.com/v1', model: 'gpt-4o-mini', fetch })
    await collect(other.stream(history))
    expect(assistantOf(calls[1]!.body)).not.toHaveProperty('reasoning_content')
  })

  it('keeps reasoning_content off assistant messages without tool calls', async () => {
    const { fetch, calls } = fakeFetch(answer('ok'))
    const model = new OpenAIChatModel({ baseURL: 'https://api.deepseek.com/v1', model: 'deepseek-reasoner', fetch })
    const earlier = {
      ...assistantMessage('It rains.'),
      reasoning: 'Easy.',
      metadata: { openaiReasoningContent: 'api.deepseek.com' },
    }
    await collect(model.stream({ messages: [userMessage('Weather?'), earlier, userMessage('Thanks')], options: {} }))
    expect(assistantOf(calls[0]!.body)).toEqual({ role: 'assistant', content: 'It rains.' })
  })

  it("sends every earlier round's reasoning_content back, not only the last one", async () => {
    const { fetch, calls } = fakeFetch(
      thinkingCall('r1', 'Oslo', 'First Oslo, then Bergen.'),
      thinkingCall('r2', 'Bergen', 'Oslo is done; now Bergen.'),
      answer('Rain in both.'),
    )
    const model = new OpenAIChatModel({ baseURL: 'https://api.deepseek.com/v1', model: 'deepseek-reasoner', fetch })
    const client = ChatClient.builder(model).defaultTools(weather).build()
    expect((await collect(client.prompt('Oslo and Bergen?').stream().content())).join('')).toBe('Rain in both.')
    expect(assistantsOf(calls[1]!.body).map((message) => message['reasoning_content'])).toEqual([
      'First Oslo, then Bergen.',
    ])
    expect(assistantsOf(calls[2]!.body).map((message) => message['reasoning_content'])).toEqual([
      'First Oslo, then Bergen.',
      'Oslo is done; now Bergen.',
    ])
  })

  for (const place of ['outside', 'inside'] as const) {
    it(`sends it back in a later turn too, from memory ${place} the tool loop`, async () => {
      const { fetch, calls } = fakeFetch(
        thinkingCall('t1', 'Oslo', 'Look the weather up.'),
        answer('Rain in Oslo.'),
        answer('You are welcome.'),
      )
      const model = new OpenAIChatModel({ baseURL: 'https://api.deepseek.com/v1', model: 'deepseek-reasoner', fetch })
      const memory = MessageWindowChatMemory.builder().build()
      const advisor = MessageChatMemoryAdvisor.builder(memory)
      if (place === 'inside') advisor.order(HIGHEST_PRECEDENCE + 350)
      const client = ChatClient.builder(model).defaultTools(weather).defaultAdvisors(advisor.build()).build()
      await collect(client.prompt('Weather in Oslo?').stream().content())
      await collect(client.prompt('Thanks').stream().content())
      const later = assistantsOf(calls[2]!.body)
      // Memory outside the loop keeps the answer only: no message with calls, so none wants its reasoning.
      if (place === 'outside') expect(later).toEqual([{ role: 'assistant', content: 'Rain in Oslo.' }])
      else {
        expect(later.map((message) => message['reasoning_content'])).toEqual(['Look the weather up.', undefined])
        expect(later[1]).toEqual({ role: 'assistant', content: 'Rain in Oslo.' })
      }
    })
  }
})
