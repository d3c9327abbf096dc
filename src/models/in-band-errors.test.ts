import { describe, expect, it } from 'vitest'
import { RetryAdvisor } from '../advisors'
import { ChatClient } from '../client'
import { userMessage, type ChatModel, type Prompt } from '../core'
import { collect } from '../core/testing/collect'
import { AnthropicChatModel } from './anthropic'
import { ChatModelError } from './errors'
import { OpenAIChatModel } from './openai'
import { OpenAIResponsesChatModel } from './openai-responses'
import { fakeFetch, responseOf } from './testing/fixtures'

// An error sent inside an HTTP 200 answer (an error event or chunk, a failed response, an error
// body) has the status its type or code stands for, as the official SDKs map statuses to error
// types, and is retryable as that status is: rate limits, overloads and server errors are,
// invalid requests are not.

type Adapter = 'chat' | 'anthropic' | 'responses'
const prompt: Prompt = { messages: [userMessage('hi')], options: {} }

function served(body: string, type = 'text/event-stream'): Response {
  return responseOf({ status: 200, headers: { 'content-type': type }, body: new TextEncoder().encode(body) })
}

function modelOf(adapter: Adapter, ...responses: Response[]): ChatModel {
  const { fetch } = fakeFetch(...responses)
  if (adapter === 'anthropic') return new AnthropicChatModel({ model: 'c', fetch })
  return adapter === 'chat'
    ? new OpenAIChatModel({ model: 'm', fetch })
    : new OpenAIResponsesChatModel({ model: 'r', fetch })
}

/** The stream whose first event is this error, in each adapter's own shape. */
function errorStream(adapter: Adapter, error: Record<string, unknown>): string {
  if (adapter === 'chat') return `data: ${JSON.stringify({ error })}\n\n`
  if (adapter === 'anthropic') return `event: error\ndata: ${JSON.stringify({ type: 'error', error })}\n\n`
  return `event: error\ndata: ${JSON.stringify({ type: 'error', ...error })}\n\n`
}

const failure = (answer: Promise<unknown>) =>
  answer.then(
    () => undefined,
    (thrown: unknown) => thrown as ChatModelError,
  )

const CASES: Array<[Adapter, Record<string, unknown>, number | undefined, boolean]> = [
  ['chat', { message: 'The server had an error.', type: 'server_error', param: null, code: null }, 500, true],
  ['chat', { message: 'Rate limit reached.', type: 'requests', code: 'rate_limit_exceeded' }, 429, true],
  ['chat', { message: 'Overloaded.', type: 'service_unavailable_error', code: 'server_is_overloaded' }, 503, true],
  ['chat', { message: 'Bad tool schema.', type: 'invalid_request_error', code: 'invalid_value' }, 400, false],
  ['chat', { message: 'Provider returned error', code: 502 }, 502, true],
  ['chat', { message: 'Token limit reached', code: 400 }, 400, false],
  ['chat', { message: 'Something odd.', type: 'mystery_error' }, undefined, false],
  ['anthropic', { type: 'overloaded_error', message: 'Overloaded' }, 529, true],
  ['anthropic', { type: 'api_error', message: 'Internal server error' }, 500, true],
  ['anthropic', { type: 'rate_limit_error', message: 'Rate limited' }, 429, true],
  ['anthropic', { type: 'timeout_error', message: 'Timed out' }, 504, true],
  ['anthropic', { type: 'invalid_request_error', message: 'messages: bad' }, 400, false],
  ['anthropic', { type: 'authentication_error', message: 'invalid x-api-key' }, undefined, false],
  ['responses', { code: 'server_error', message: 'The server had an error.' }, 500, true],
  ['responses', { code: 'rate_limit_exceeded', message: 'Rate limit reached.' }, 429, true],
  ['responses', { code: 'vector_store_timeout', message: 'Timed out.' }, 504, true],
  ['responses', { code: 'invalid_prompt', message: 'Invalid prompt.' }, undefined, false],
]

describe('in-band errors have a status and are retryable as the SDKs decide', () => {
  it.each(CASES)('%s streams %j: status %s, retryable %s', async (adapter, error, status, retryable) => {
    const thrown = await failure(collect(modelOf(adapter, served(errorStream(adapter, error))).stream(prompt)))
    expect(thrown).toBeInstanceOf(ChatModelError)
    expect(thrown).toMatchObject({ retryable, status })
    expect(thrown!.message).toContain(String(error['message']).replace(/\.$/, ''))
  })

  it('an OpenAI Responses error event that nests its error is read the same', async () => {
    const body = `data: ${JSON.stringify({ type: 'error', error: { type: 'service_unavailable_error', code: 'server_is_overloaded', message: 'Our servers are overloaded.' } })}\n\n`
    expect(await failure(collect(modelOf('responses', served(body)).stream(prompt)))).toMatchObject({
      status: 503,
      code: 'server_is_overloaded',
      retryable: true,
    })
  })

  it('a response.failed with a server error is retryable', async () => {
    const failed = {
      type: 'response.failed',
      response: { id: 'r', status: 'failed', error: { code: 'server_error', message: 'Sorry.' } },
    }
    expect(
      await failure(collect(modelOf('responses', served(`data: ${JSON.stringify(failed)}\n\n`)).stream(prompt))),
    ).toMatchObject({
      status: 500,
      retryable: true,
    })
  })

  it.each([
    ['chat', { error: { message: 'The server had an error.', type: 'server_error' } }, 500],
    ['anthropic', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 529],
    ['responses', { id: 'r', status: 'failed', error: { code: 'rate_limit_exceeded', message: 'Slow down.' } }, 429],
  ] as const)('%s call(): an error body with HTTP 200 is retryable as its status %s', async (adapter, body, status) => {
    const model = modelOf(adapter, served(JSON.stringify(body), 'application/json'))
    expect(await failure(model.call(prompt))).toMatchObject({ status, retryable: true })
  })

  it('a RetryAdvisor retries a stream whose first chunk is an in-band server_error', async () => {
    const ok = `data: ${JSON.stringify({ id: 'a', model: 'm', choices: [{ index: 0, delta: { content: 'Hello' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`
    const model = modelOf(
      'chat',
      served(errorStream('chat', { message: 'The server had an error.', type: 'server_error' })),
      served(ok),
    )
    const client = ChatClient.builder(model)
      .defaultAdvisors(RetryAdvisor.builder().maxAttempts(2).initialDelayMs(0).jitter(0).build())
      .build()
    expect((await collect(client.prompt('hi').stream().content())).join('')).toBe('Hello')
  })
})
