import { describe, expect, it } from 'vitest'
import { LOWEST_PRECEDENCE, type ChatClientResponse, type StreamAdvisor } from '../core'
import { ChatClient } from '../client'
import { ChatModelError, ScriptedChatModel, type ScriptStep } from '../models'
import { collect } from '../core/testing/collect'
import { TraceCollector } from '../trace'
import { ObserverAdvisor } from './observer/observer'
import { RetryAdvisor } from './retry'

const overloaded = (retryAfterMs?: number) =>
  new ChatModelError('overloaded', {
    provider: 'test',
    status: 529,
    retryable: true,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  })
const badKey = () => new ChatModelError('bad key', { provider: 'test', status: 401, retryable: false })

function setup(script: ScriptStep[], configure: (builder: ReturnType<typeof RetryAdvisor.builder>) => void = () => {}) {
  const waits: number[] = []
  const builder = RetryAdvisor.builder()
    .random(() => 0.5)
    .sleep(async (ms) => void waits.push(ms))
  configure(builder)
  const model = new ScriptedChatModel(script)
  const collector = new TraceCollector()
  const client = ChatClient.builder(model)
    .defaultAdvisors(builder.build(), new ObserverAdvisor({ sink: collector }))
    .build()
  return { model, waits, client, collector }
}

describe('RetryAdvisor', () => {
  it('retries a retryable failure and returns the answer', async () => {
    const { model, client } = setup([{ error: overloaded() }, 'ok'])
    expect(await client.prompt('q').call().content()).toBe('ok')
    expect(model.prompts).toHaveLength(2)
  })

  it('does not retry an error that is not retryable', async () => {
    const { model, client } = setup([{ error: badKey() }, 'never'])
    await expect(client.prompt('q').call().content()).rejects.toThrow('bad key')
    expect(model.prompts).toHaveLength(1)
  })

  it('gives up after maxAttempts attempts with the last error', async () => {
    const { model, client } = setup([
      { error: overloaded() },
      { error: overloaded() },
      { error: overloaded() },
      'never',
    ])
    await expect(client.prompt('q').call().content()).rejects.toBeInstanceOf(ChatModelError)
    expect(model.prompts).toHaveLength(3)
  })

  it('backs off exponentially with jitter', async () => {
    const { waits, client } = setup(
      [{ error: overloaded() }, { error: overloaded() }, { error: overloaded() }, 'ok'],
      (b) => b.maxAttempts(4).initialDelayMs(100).multiplier(3).jitter(0.5),
    )
    await client.prompt('q').call().content()
    expect(waits).toEqual([75, 225, 675])
  })

  it('waits at least what the server asked for', async () => {
    const { waits, client } = setup([{ error: overloaded(2_000) }, 'ok'], (b) => b.initialDelayMs(100))
    await client.prompt('q').call().content()
    expect(waits).toEqual([2_000])
  })

  it('gives up rather than wait past the total delay budget', async () => {
    const { model, waits, client } = setup([{ error: overloaded(5_000) }, 'never'], (b) => b.maxTotalDelayMs(1_000))
    await expect(client.prompt('q').call().content()).rejects.toThrow('overloaded')
    expect([model.prompts.length, waits.length]).toEqual([1, 0])
  })

  it('caps each wait at maxDelayMs', () => {
    const advisor = RetryAdvisor.builder().initialDelayMs(1_000).maxDelayMs(3_000).jitter(0).build()
    expect([2, 3, 4, 5].map((attempt) => advisor.delayBefore(attempt))).toEqual([1_000, 2_000, 3_000, 3_000])
  })

  it('stops at once when aborted during the backoff, leaving no timer', async () => {
    const model = new ScriptedChatModel([{ error: overloaded() }, 'never'])
    const controller = new AbortController()
    const client = ChatClient.builder(model)
      .defaultAdvisors(RetryAdvisor.builder().initialDelayMs(60_000).jitter(0).build())
      .build()
    const answer = client.prompt('q').signal(controller.signal).call().content()
    await new Promise((resolve) => setTimeout(resolve, 10))
    const started = performance.now()
    controller.abort()
    await expect(answer).rejects.toMatchObject({ name: 'AbortError' })
    expect(performance.now() - started).toBeLessThan(100)
    expect(model.prompts).toHaveLength(1)
  })

  it('retries a stream that fails before its first chunk', async () => {
    const { model, client } = setup([{ error: overloaded() }, { text: 'hello there' }])
    expect((await collect(client.prompt('q').stream().content())).join('')).toBe('hello there')
    expect(model.prompts).toHaveLength(2)
  })

  it('does not retry a stream that already delivered a chunk', async () => {
    const { model, client } = setup([{ text: 'a b c', error: overloaded(), failAfterChunks: 1 }, 'never'])
    await expect(collect(client.prompt('q').stream().content())).rejects.toThrow('overloaded')
    expect(model.prompts).toHaveLength(1)
  })

  it('shows each retry to observers', async () => {
    const { collector, client } = setup([{ error: overloaded() }, 'ok'], (b) => b.initialDelayMs(100).jitter(0))
    await client.prompt('q').call().content()
    expect(collector.ofType('retry')).toMatchObject([
      { attempt: 2, delayMs: 100, error: { name: 'ChatModelError', message: 'overloaded', status: 529 } },
    ])
  })

  it('sits just outside the model call by default, inside the tool loop', () => {
    const advisor = RetryAdvisor.builder().build()
    expect([advisor.name, advisor.order]).toEqual(['Retry Advisor', LOWEST_PRECEDENCE - 1])
  })

  it('works with errors of any model that say they are retryable', async () => {
    const flaky = Object.assign(new Error('gpu busy'), { retryable: true })
    const { client } = setup([{ error: flaky }, 'ok'])
    expect(await client.prompt('q').call().content()).toBe('ok')
  })

  it('re-runs only what is after it in the chain', async () => {
    const seen: number[] = []
    const inner: StreamAdvisor & { adviseCall: (r: never, c: never) => Promise<ChatClientResponse> } = {
      name: 'inner',
      order: LOWEST_PRECEDENCE - 1,
      adviseStream: (req, chain) => chain.nextStream(req),
      adviseCall: async (req: never, chain: { nextCall(r: never): Promise<ChatClientResponse> }) => (
        seen.push(1),
        chain.nextCall(req)
      ),
    }
    const model = new ScriptedChatModel([{ error: overloaded() }, 'ok'])
    const retry = RetryAdvisor.builder()
      .advisorOrder(LOWEST_PRECEDENCE - 2)
      .sleep(async () => {})
      .build()
    await ChatClient.builder(model).defaultAdvisors(retry, inner).build().prompt('q').call().content()
    expect(seen).toEqual([1, 1])
  })
})
