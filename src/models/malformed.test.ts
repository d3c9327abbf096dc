import { describe, expect, it } from 'vitest'
import { userMessage, type ChatModel, type Prompt } from '../core'
import { collect } from '../core/testing/collect'
import { AnthropicChatModel } from './anthropic'
import { ChatModelError } from './errors'
import { OpenAIChatModel } from './openai'
import { fakeFetch, responseOf } from './testing/fixtures'

// Bodies of the wrong shape, streamed and not, from both providers: each must fail as one
// ChatModelError (code invalid_response, the provider named), never a TypeError or a number as text.

const prompt: Prompt = { messages: [userMessage('hi')], options: {} }

function served(body: string, type: string): Response {
  return responseOf({ status: 200, headers: { 'content-type': type }, body: new TextEncoder().encode(body) })
}

const openai = (response: Response): ChatModel => new OpenAIChatModel({ model: 'm', fetch: fakeFetch(response).fetch })
const anthropic = (response: Response): ChatModel =>
  new AnthropicChatModel({ model: 'c', fetch: fakeFetch(response).fetch })

const openAIStreamLines: Record<string, string> = {
  'data: null': 'null',
  'a number': '7',
  'a string': '"chunk"',
  'an array': '[]',
  'a null choice': '{"choices":[null]}',
  'choices as an object': '{"choices":{}}',
  'a negative choice index': '{"choices":[{"index":-1,"delta":{}}]}',
  'a delta that is a string': '{"choices":[{"index":0,"delta":"x"}]}',
  'content as a number': '{"choices":[{"index":0,"delta":{"content":7}}]}',
  'a content part that is a number': '{"choices":[{"index":0,"delta":{"content":[7]}}]}',
  'a text part whose text is a number': '{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":7}]}}]}',
  'reasoning_content as an object': '{"choices":[{"index":0,"delta":{"reasoning_content":{}}}]}',
  'refusal as a number': '{"choices":[{"index":0,"delta":{"refusal":1}}]}',
  'tool_calls as a string': '{"choices":[{"index":0,"delta":{"tool_calls":"x"}}]}',
  'a null tool call': '{"choices":[{"index":0,"delta":{"tool_calls":[null]}}]}',
  'a tool call index that is text': '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":"0"}]}}]}',
  'a fractional tool call index': '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0.5}]}}]}',
  'function as a string': '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":"f"}]}}]}',
  'a function name that is a number':
    '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":5}}]}}]}',
  'arguments as a number': '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":5}}]}}]}',
  'finish_reason as a number': '{"choices":[{"index":0,"delta":{},"finish_reason":1}]}',
}

const openAIBodies: Record<string, string> = {
  null: 'null',
  'a number': '7',
  'an array': '[]',
  'a null choice': '{"choices":[null]}',
  'choices as an object': '{"choices":{}}',
  'message as a string': '{"choices":[{"message":"hi"}]}',
  'content as a number': '{"choices":[{"message":{"content":7}}]}',
  'content parts that are not objects': '{"choices":[{"message":{"content":["a"]}}]}',
  'tool_calls as a string': '{"choices":[{"message":{"tool_calls":"x"}}]}',
  'a tool call name that is a number': '{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":7}}]}}]}',
  'a tool call id that is an object': '{"choices":[{"message":{"tool_calls":[{"id":{},"function":{"name":"f"}}]}}]}',
  'reasoning as a number': '{"choices":[{"message":{"content":"a","reasoning":3}}]}',
}

const anthropicStreamEvents: Record<string, string> = {
  'data: null': 'null',
  'a number': '7',
  'message_start without a message': '{"type":"message_start","message":null}',
  'a content block that is null': '{"type":"content_block_start","index":0,"content_block":null}',
  'a content block index that is text': '{"type":"content_block_start","index":"0","content_block":{"type":"text"}}',
  'a content block text that is a number':
    '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":7}}',
  'a delta that is a string': '{"type":"content_block_delta","index":0,"delta":"x"}',
  'a text delta that is a number': '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":7}}',
  'a thinking delta that is an array':
    '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":[]}}',
  'json for a block that never started':
    '{"type":"content_block_delta","index":9,"delta":{"type":"input_json_delta","partial_json":"{"}}',
  'a stop reason that is a number': '{"type":"message_delta","delta":{"stop_reason":1}}',
  'a message delta that is a string': '{"type":"message_delta","delta":"stop"}',
}

const anthropicBodies: Record<string, string> = {
  null: 'null',
  'a string': '"message"',
  'content as an object': '{"content":{}}',
  'a null block': '{"content":[null]}',
  'text as a number': '{"content":[{"type":"text","text":7}]}',
  'a tool_use id that is a number': '{"content":[{"type":"tool_use","id":7,"name":"f","input":{}}]}',
  'thinking as an object': '{"content":[{"type":"thinking","thinking":{},"signature":"s"}]}',
  'a stop reason that is a number': '{"content":[],"stop_reason":1}',
}

async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  return 'no error'
}

function expectInvalidResponse(error: unknown, provider: string, label: string): void {
  expect(error).toBeInstanceOf(ChatModelError)
  expect(error).toMatchObject({ provider, code: 'invalid_response', retryable: false })
  expect((error as Error).message).toMatch(new RegExp(`^${label}: the (response cannot be read|stream sent a line)`))
}

describe('malformed OpenAI-compatible streams', () => {
  const opening = 'data: {"id":"x","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"a"}}]}\n\n'
  for (const [name, line] of Object.entries(openAIStreamLines)) {
    it(`fails with invalid_response on ${name}`, async () => {
      const body = `${opening}data: ${line}\n\ndata: [DONE]\n\n`
      expectInvalidResponse(
        await failure(() => collect(openai(served(body, 'text/event-stream')).stream(prompt))),
        'openai',
        'OpenAI',
      )
    })
  }
})

describe('malformed OpenAI-compatible bodies', () => {
  for (const [name, body] of Object.entries(openAIBodies)) {
    it(`fails with invalid_response on ${name}`, async () => {
      expectInvalidResponse(
        await failure(() => openai(served(body, 'application/json')).call(prompt)),
        'openai',
        'OpenAI',
      )
    })
  }
})

describe('malformed Anthropic streams', () => {
  const opening = 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c"}}\n\n'
  for (const [name, event] of Object.entries(anthropicStreamEvents)) {
    it(`fails with invalid_response on ${name}`, async () => {
      const body = `${opening}data: ${event}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`
      expectInvalidResponse(
        await failure(() => collect(anthropic(served(body, 'text/event-stream')).stream(prompt))),
        'anthropic',
        'Anthropic',
      )
    })
  }
})

describe('malformed Anthropic bodies', () => {
  for (const [name, body] of Object.entries(anthropicBodies)) {
    it(`fails with invalid_response on ${name}`, async () => {
      expectInvalidResponse(
        await failure(() => anthropic(served(body, 'application/json')).call(prompt)),
        'anthropic',
        'Anthropic',
      )
    })
  }
})
