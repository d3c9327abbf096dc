import { describe, expect, it } from 'vitest'
import {
  AdvisorChain,
  modelStreamAdvisor,
  registerSecret,
  userMessage,
  type ChatModel,
  type Escalation,
  type StreamPart,
} from '../core'
import { collect } from '../core/testing/collect'
import { ChatClient } from '../client'
import { ChatModelError, ScriptedChatModel, type ScriptStep } from '../models'
import { defineTool } from '../tools'
import { TraceCollector, type TraceEventOf } from '../trace'
import { EscalationAdvisor, EscalationError, type EscalationAdvisorBuilder } from './escalation'
import { ObserverAdvisor } from './observer/observer'
import { RetryAdvisor } from './retry'
import { StructuredOutputValidationAdvisor } from './structured-output'
import { ToolCallingAdvisor } from './tool-loop/tool-calling'

/** A scripted model under another name, as an engine or a remote adapter names itself. */
function named(
  provider: string,
  model: string,
  script: ScriptStep[],
): ChatModel & { prompts: ScriptedChatModel['prompts'] } {
  const scripted = new ScriptedChatModel(script, { model })
  return {
    provider,
    model,
    prompts: scripted.prompts,
    call: (prompt, signal) => scripted.call(prompt, signal),
    stream: (prompt, signal) => scripted.stream(prompt, signal),
  } as ChatModel & { prompts: ScriptedChatModel['prompts'] }
}

const engineError = (code: string, retryable = false) =>
  new ChatModelError(`engine failed: ${code}`, { provider: 'webllm', code, retryable })

function setup(
  local: ScriptStep[],
  remote: ScriptStep[],
  configure: (builder: EscalationAdvisorBuilder) => void = () => {},
) {
  const device = named('webllm', 'Qwen-0.5B', local)
  const fallback = named('openai', 'gpt-remote', remote)
  const builder = EscalationAdvisor.builder(fallback)
  configure(builder)
  const escalation = builder.build()
  const trace = new TraceCollector()
  const client = ChatClient.builder(device)
    .defaultAdvisors(escalation, new ObserverAdvisor({ sink: trace, performanceTrack: false }))
    .build()
  return { device, fallback, client, trace, escalation }
}

const escalationOf = (metadata: Record<string, unknown> | undefined) => metadata?.escalation as Escalation | undefined

const textOf = (parts: StreamPart[]) =>
  parts
    .filter((part): part is StreamPart & { type: 'text-delta' } => part.type === 'text-delta')
    .map((part) => part.delta)
    .join('')

describe('EscalationAdvisor, on a call', () => {
  it.each([
    ['unavailable', engineError('WebGPUNotAvailableError')],
    ['context-full', engineError('context-full')],
    ['invalid-output', engineError('InvalidOutputError', true)],
    ['error', engineError('overloaded', true)],
  ] as const)("sends the round to the fallback when the engine fails with '%s'", async (reason, error) => {
    const { client, device, fallback } = setup([{ error }], ['from the fallback'])
    const response = await client.prompt('q').call().chatResponse()
    expect(response?.results[0]?.output.text).toBe('from the fallback')
    expect(escalationOf(response?.metadata)).toEqual({ from: 'Qwen-0.5B', to: 'gpt-remote', reason })
    expect(device.prompts).toHaveLength(1)
    expect(fallback.prompts[0]!.messages).toEqual(device.prompts[0]!.messages)
  })

  it('keeps the local answer when nothing is wrong, and never calls the fallback', async () => {
    const { client, fallback } = setup(['local answer'], [])
    const response = await client.prompt('q').call().chatResponse()
    expect(response?.results[0]?.output.text).toBe('local answer')
    expect(escalationOf(response?.metadata)).toBeUndefined()
    expect(fallback.prompts).toHaveLength(0)
  })

  it('escalates an answer that stopped because the prompt was over the window', async () => {
    const { client } = setup([{ text: '', finishReason: 'model_context_window_exceeded' }], ['remote'])
    const response = await client.prompt('q').call().chatResponse()
    expect(escalationOf(response?.metadata)).toMatchObject({ from: 'Qwen-0.5B', reason: 'context-full' })
  })

  it('does not escalate an error another model would fail too (not retryable)', async () => {
    const { client, fallback } = setup([{ error: engineError('invalid_api_key') }], ['never'])
    await expect(client.prompt('q').call().content()).rejects.toThrow('engine failed: invalid_api_key')
    expect(fallback.prompts).toHaveLength(0)
  })

  it('escalates only for the reasons given to on()', async () => {
    const { client, fallback } = setup([{ error: engineError('overloaded', true) }], ['never'], (b) =>
      b.on('unavailable'),
    )
    await expect(client.prompt('q').call().content()).rejects.toThrow('overloaded')
    expect(fallback.prompts).toHaveLength(0)
  })

  it("escalates 'error' only once the retries are spent", async () => {
    const device = named('webllm', 'local', [
      { error: engineError('busy', true) },
      { error: engineError('busy', true) },
    ])
    const fallback = named('openai', 'remote', ['remote answer'])
    const retry = RetryAdvisor.builder()
      .maxAttempts(2)
      .sleep(() => Promise.resolve())
      .build()
    const client = ChatClient.builder(device)
      .defaultAdvisors(EscalationAdvisor.builder(fallback).build(), retry)
      .build()
    expect(await client.prompt('q').call().content()).toBe('remote answer')
    expect(device.prompts).toHaveLength(2)
  })

  it("escalates a slow model ('slow') and stops waiting for it", async () => {
    let signal: AbortSignal | undefined
    const device = named('webllm', 'local', [])
    device.call = (_prompt, given) => {
      signal = given
      return new Promise(() => {})
    }
    const client = ChatClient.builder(device)
      .defaultAdvisors(
        EscalationAdvisor.builder(named('openai', 'remote', ['fast remote']))
          .firstTokenTimeoutMs(5)
          .build(),
      )
      .build()
    const response = await client.prompt('q').call().chatResponse()
    // A model that never answers is told to stop.
    expect(signal?.aborted).toBe(true)
    expect(response?.results[0]?.output.text).toBe('fast remote')
    expect(escalationOf(response?.metadata)?.reason).toBe('slow')
  })

  it("escalates an answer the app's when() rejects ('rejected')", async () => {
    const seen: string[] = []
    const { client } = setup(['I cannot help with that.'], ['Here is the answer.'], (b) =>
      b.when((request, response) => {
        seen.push(response.chatResponse?.results[0]?.output.text ?? '')
        return Promise.resolve(/cannot/.test(seen.at(-1)!))
      }),
    )
    const response = await client.prompt('q').call().chatResponse()
    expect(response?.results[0]?.output.text).toBe('Here is the answer.')
    expect(escalationOf(response?.metadata)?.reason).toBe('rejected')
    expect(seen).toEqual(['I cannot help with that.'])
  })

  it('keeps the local answer when when() throws, and reports the error in the trace', async () => {
    const { client, fallback, trace } = setup(['local'], ['never'], (b) =>
      b.when(() => {
        throw new Error('evaluator down')
      }),
    )
    expect(await client.prompt('q').call().content()).toBe('local')
    expect(fallback.prompts).toHaveLength(0)
    const note = trace.events.find((event) => event.type === 'note') as TraceEventOf<'note'>
    expect(note).toMatchObject({ level: 'warning', advisor: 'Escalation Advisor' })
    expect(note.message).toContain('evaluator down')
  })

  it('fails the turn with both causes when the fallback fails too', async () => {
    const local = engineError('WebGPUNotAvailableError')
    const remote = new ChatModelError('remote is down', { provider: 'openai', status: 500, retryable: true })
    const { client } = setup([{ error: local }], [{ error: remote }])
    const error = (await client
      .prompt('q')
      .call()
      .content()
      .catch((e: unknown) => e)) as EscalationError
    expect(error).toBeInstanceOf(EscalationError)
    expect(error.message).toContain('engine failed: WebGPUNotAvailableError')
    expect(error.message).toContain('remote is down')
    expect(error.localCause).toBe(local)
    expect(error.cause).toBe(remote)
  })

  it('rejects with an AbortError when the caller aborts during the fallback', async () => {
    const controller = new AbortController()
    const { client } = setup([{ error: engineError('unavailable') }], [{ text: 'slow', delayMs: 60_000 }])
    const pending = client.prompt('q').signal(controller.signal).call().content()
    setTimeout(() => controller.abort(), 1)
    const error = (await pending.catch((e: unknown) => e)) as Error
    expect(error.name).toBe('AbortError')
  })

  it("lets the validation's attempts run first, then escalates a structured answer still invalid", async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }
    const { client, device, fallback, trace } = setup(['{"city": 1}', '{"town": "x"}'], ['{"city": "Lisbon"}'])
    const city = await client
      .prompt('q')
      .advisors(StructuredOutputValidationAdvisor.builder().outputSchema(schema).maxRepeatAttempts(1).build())
      .call()
      .entity(schema)
    expect(city).toEqual({ city: 'Lisbon' })
    expect(device.prompts).toHaveLength(2)
    expect(fallback.prompts).toHaveLength(1)
    // The fallback's validation attempt reaches the observer outside its chain.
    const attempts = trace.events.filter((event) => event.type === 'validation') as TraceEventOf<'validation'>[]
    expect(attempts.map((attempt) => attempt.valid)).toEqual([false, false, true])
    const escalation = trace.events.find((event) => event.type === 'escalation') as TraceEventOf<'escalation'>
    expect(escalation).toMatchObject({ reason: 'invalid-output', from: 'Qwen-0.5B', to: 'gpt-remote', round: 1 })
  })

  it('escalates a tool call whose arguments are not JSON: the loop runs only the fallback’s call', async () => {
    const ran: unknown[] = []
    const weather = defineTool({
      name: 'weather',
      description: 'weather of a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      execute: (args) => {
        ran.push(args)
        return Promise.resolve('sunny')
      },
    })
    const { client, fallback, trace } = setup(
      [{ toolCalls: [{ name: 'weather', arguments: '{"city": "Lis' }] }, 'It is sunny.'],
      [{ toolCalls: [{ name: 'weather', arguments: { city: 'Lisbon' } }] }],
    )
    expect(await client.prompt('q').tools(weather).call().content()).toBe('It is sunny.')
    expect(ran).toEqual([{ city: 'Lisbon' }])
    // The fallback got the same tools, to translate into its own tool-call rules.
    expect(fallback.prompts[0]!.options.tools?.map((tool) => tool.definition.name)).toEqual(['weather'])
    const rounds = trace.events.filter((event) => event.type === 'model-response') as TraceEventOf<'model-response'>[]
    expect(rounds.map((event) => [event.round, event.model])).toEqual([
      [1, 'gpt-remote'],
      [2, 'Qwen-0.5B'],
    ])
    const escalation = trace.events.find((event) => event.type === 'escalation') as TraceEventOf<'escalation'>
    expect(escalation.detail).toContain("tool call 'weather'")
  })

  it('masks a registered secret in the escalation event and the error', async () => {
    const secret = 'sk-escalation-secret-123456'
    registerSecret(secret)
    const leaky = new Error(`bad key ${secret}`)
    const { client, trace } = setup(
      [{ error: new ChatModelError(`lost ${secret}`, { provider: 'webllm', code: 'disposed', retryable: false }) }],
      [{ error: leaky }],
    )
    const error = (await client
      .prompt('q')
      .call()
      .content()
      .catch((e: unknown) => e)) as Error
    expect(error.message).not.toContain(secret)
    expect(JSON.stringify(trace.events)).not.toContain(secret)
  })

  it('escalates inside a sub-agent, whose run records the escalation', async () => {
    const { agentTool } = await import('../client')
    const child = setup([{ error: engineError('unavailable') }], ['child answer from remote'])
    const parentModel = new ScriptedChatModel([
      { toolCalls: [{ name: 'helper', arguments: { task: 'do it' } }] },
      (prompt) => {
        const tool = prompt.messages.at(-1)
        return tool?.role === 'tool' ? tool.responses[0]!.responseData : 'no tool answer'
      },
    ])
    const parent = ChatClient.builder(parentModel)
      .defaultTools(agentTool(child.client, { name: 'helper', description: 'helps' }))
      .build()
    expect(await parent.prompt('q').call().content()).toBe('child answer from remote')
    expect(child.trace.events.some((event) => event.type === 'escalation')).toBe(true)
  })

  it('sits inside the tool loop and the observer, outside validation and retries', () => {
    const order = EscalationAdvisor.DEFAULT_ORDER
    expect(order).toBeGreaterThan(ToolCallingAdvisor.DEFAULT_ORDER)
    expect(order).toBeGreaterThan(ObserverAdvisor.DEFAULT_ORDER)
    expect(order).toBeLessThan(StructuredOutputValidationAdvisor.DEFAULT_ORDER)
    expect(order).toBeLessThan(RetryAdvisor.DEFAULT_ORDER)
  })

  it('refuses an unknown reason, naming it', () => {
    const fallback = new ScriptedChatModel([])
    expect(() =>
      EscalationAdvisor.builder(fallback)
        .on('offline' as 'error')
        .build(),
    ).toThrow(/Unknown escalation reason "offline"/)
  })
})

describe('EscalationAdvisor, on a stream', () => {
  it.each([
    ['unavailable', { error: engineError('too-large') }],
    ['context-full', { error: engineError('quota-exceeded') }],
    ['invalid-output', { error: engineError('invalid-output', true) }],
    ['error', { error: engineError('overloaded', true) }],
  ] as const)("streams the fallback's answer when the engine fails with '%s'", async (reason, step) => {
    const { client } = setup([step], ['from the fallback'])
    const chunks = await collect(client.prompt('q').stream().chatResponse())
    expect(chunks.map((chunk) => chunk.results[0]?.output.text).join('')).toBe('from the fallback')
    expect(chunks.map((chunk) => escalationOf(chunk.metadata)).find(Boolean)).toMatchObject({ reason })
  })

  it('starts the round over visibly when it escalates after its first chunks', async () => {
    const { client, trace } = setup(
      [{ text: 'half an answer that breaks', error: engineError('overloaded', true), failAfterChunks: 2 }],
      ['the whole remote answer'],
    )
    const parts = await collect(client.prompt('q').stream().parts())
    const restart = parts.findIndex((part) => part.type === 'attempt-start')
    expect(restart).toBeGreaterThan(0)
    expect(textOf(parts.slice(0, restart))).toBe('half an ')
    expect(textOf(parts.slice(restart))).toBe('the whole remote answer')
    expect(parts[restart]).toMatchObject({ errors: [expect.stringContaining('error') as unknown] })
    // The round's answer is the fallback's alone, never glued to the local half.
    const response = trace.events.find((event) => event.type === 'model-response') as TraceEventOf<'model-response'>
    expect(response.text).toBe('the whole remote answer')
    expect(response.model).toBe('gpt-remote')
  })

  it('escalates a streamed tool call whose arguments are not JSON: the loop runs only the fallback’s call', async () => {
    const ran: unknown[] = []
    const weather = defineTool({
      name: 'weather',
      description: 'weather of a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      execute: (args) => {
        ran.push(args)
        return Promise.resolve('sunny')
      },
    })
    const { client, trace } = setup(
      [{ text: 'Let me look.', toolCalls: [{ name: 'weather', arguments: '{"city": "Lis' }] }, 'It is sunny.'],
      [{ toolCalls: [{ name: 'weather', arguments: { city: 'Lisbon' } }] }],
    )
    const parts = await collect(client.prompt('q').tools(weather).stream().parts())
    expect(ran).toEqual([{ city: 'Lisbon' }])
    expect(parts.filter((part) => part.type === 'tool-result')).toHaveLength(1)
    expect(textOf(parts)).toContain('It is sunny.')
    const rounds = trace.events.filter((event) => event.type === 'model-response') as TraceEventOf<'model-response'>[]
    expect(rounds[0]).toMatchObject({ model: 'gpt-remote', text: '' })
    expect(rounds[0]!.toolCalls.map((call) => call.arguments)).toEqual(['{"city":"Lisbon"}'])
  })

  it('names the model that answered, and why it left the device, in the finish part', async () => {
    const { client } = setup([{ error: engineError('unavailable') }], ['remote words'])
    const parts = await collect(client.prompt('q').stream().parts())
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      model: 'gpt-remote',
      escalation: { from: 'Qwen-0.5B', to: 'gpt-remote', reason: 'unavailable' },
    })
    const { client: kept } = setup(['local words'], [])
    const finish = (await collect(kept.prompt('q').stream().parts())).at(-1)
    expect(finish).toMatchObject({ type: 'finish', model: 'Qwen-0.5B' })
    expect(finish).not.toHaveProperty('escalation')
  })

  it("escalates a stream with no first token in time ('slow')", async () => {
    const { client } = setup([{ text: 'late', delayMs: 60_000 }], ['quick'], (b) => b.firstTokenTimeoutMs(5))
    const chunks = await collect(client.prompt('q').stream().chatResponse())
    expect(chunks.map((chunk) => chunk.results[0]?.output.text).join('')).toBe('quick')
    expect(chunks.map((chunk) => escalationOf(chunk.metadata)).find(Boolean)?.reason).toBe('slow')
  })

  it('starts the first-token clock when the stream is read, not when it is made', async () => {
    const device = named('webllm', 'local', ['local words'])
    const fallback = named('openai', 'remote', ['never'])
    const escalation = EscalationAdvisor.builder(fallback).firstTokenTimeoutMs(5).build()
    const chain = AdvisorChain.of([escalation, modelStreamAdvisor(device)])
    const stream = chain.nextStream({ prompt: { messages: [userMessage('q')], options: {} }, context: {} })
    await new Promise((resolve) => setTimeout(resolve, 30))
    const chunks = await collect(stream)
    expect(chunks.map((chunk) => chunk.chatResponse?.results[0]?.output.text).join('')).toBe('local words')
    expect(fallback.prompts).toHaveLength(0)
  })

  it('keeps a stream that started in time, however long it then takes', async () => {
    const { client, fallback } = setup([{ text: 'a b c', delayMs: 15 }], ['never'], (b) =>
      b.firstTokenTimeoutMs(10_000),
    )
    expect((await collect(client.prompt('q').stream().content())).join('')).toBe('a b c')
    expect(fallback.prompts).toHaveLength(0)
  })

  it("escalates a streamed answer the app's when() rejects", async () => {
    const { client } = setup(['I refuse.'], ['Sure.'], (b) =>
      b.when((_, response) => response.chatResponse?.results[0]?.output.text === 'I refuse.'),
    )
    const parts = await collect(client.prompt('q').stream().parts())
    const restart = parts.findIndex((part) => part.type === 'attempt-start')
    expect(textOf(parts.slice(restart))).toBe('Sure.')
  })

  it('escalates a streamed structured answer still invalid after the validation', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }
    const { client, device } = setup(['{"city": 1}', '{"city": 2}'], ['{"city": "Porto"}'])
    const stream = client
      .prompt('q')
      .advisors(StructuredOutputValidationAdvisor.builder().outputSchema(schema).maxRepeatAttempts(1).build())
      .stream()
      .partialEntity(schema)
    expect(await stream.entity).toEqual({ city: 'Porto' })
    expect(device.prompts).toHaveLength(2)
  })

  it('fails the stream with both causes when the fallback fails too', async () => {
    const { client } = setup(
      [{ error: engineError('unavailable') }],
      [{ text: 'partial remote', error: new Error('remote cut'), failAfterChunks: 1 }],
    )
    const error = (await collect(client.prompt('q').stream().content()).catch((e: unknown) => e)) as EscalationError
    expect(error).toBeInstanceOf(EscalationError)
    expect(error.message).toContain('remote cut')
  })

  it('rejects with an AbortError when the caller aborts during the fallback', async () => {
    const controller = new AbortController()
    const { client } = setup([{ error: engineError('unavailable') }], [{ text: 'slow remote words', delayMs: 60_000 }])
    const pending = collect(client.prompt('q').signal(controller.signal).stream().content())
    setTimeout(() => controller.abort(), 1)
    const error = (await pending.catch((e: unknown) => e)) as Error
    expect(error.name).toBe('AbortError')
  })
})
