import { describe, expect, it } from 'vitest'
import { registerSecret, type ChatModel, type ChatResponse, type Message } from '../../core'
import { ChatClient, type ChatClientBuilder } from '../../client'
import { secretRules } from '../../mcp/secrets'
import { ScriptedChatModel } from '../../models'
import { defineTool } from '../../tools'
import { TraceCollector, cassetteFromTrace, exportTrace, importTrace, type TraceEvent } from '../../trace'
import { ObserverAdvisor } from './observer'
import { ApprovalQueue } from '../approval-queue'
import { ToolApprovalAdvisor } from '../tool-approval'

const login = defineTool({
  name: 'login',
  description: 'Logs in',
  inputSchema: { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string' } } } as const,
  execute: ({ user }) => `welcome ${user}`,
})
const PASSWORD = 'correct-horse-battery'

describe('ObserverAdvisor keeps secrets out of tool arguments', () => {
  it.each(['call', 'stream'] as const)('masks a password argument in every event of a %s', async (mode) => {
    const collector = new TraceCollector()
    const queue = new ApprovalQueue()
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'login', arguments: { user: 'ann', password: PASSWORD } }] },
      'Logged in.',
    ])
    const client = ChatClient.builder(model)
      .defaultTools(login)
      .defaultAdvisors(
        new ObserverAdvisor({ sink: collector }),
        ToolApprovalAdvisor.builder().policy('login', 'always').handler(queue.handler).build(),
      )
      .build()
    const unsubscribe = queue.subscribe(
      () => queue.pending()[0] && queue.decide(queue.pending()[0]!.id, { type: 'approve' }),
    )
    if (mode === 'call') await client.prompt('log me in').call().content()
    else for await (const _ of client.prompt('log me in').stream().content());
    unsubscribe()
    expect(JSON.stringify(collector.events)).not.toContain(PASSWORD)
    const started = collector.ofType('tool-start')[0]!
    expect(JSON.parse(started.toolCall.arguments)).toEqual({ user: 'ann', password: '[redacted]' })
    expect(collector.ofType('approval')).toHaveLength(2)
    expect(
      model.prompts[1]!.messages.some((m) => m.role === 'assistant' && m.toolCalls[0]!.arguments.includes(PASSWORD)),
    ).toBe(true)
  })

  it('keeps tool schemas readable (a password field stays) while scrubbing registered secrets from them', async () => {
    const secret = 'tool-desc-secret-9f8e7d6c5b'
    registerSecret(secret)
    const described = defineTool({
      name: 'vault',
      description: `Opens the vault with ${secret}`,
      inputSchema: { type: 'object', properties: { password: { type: 'string' } } },
      execute: () => 'open',
    })
    const collector = new TraceCollector()
    await ChatClient.builder(new ScriptedChatModel(['ok']))
      .defaultTools(described)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
      .prompt('q')
      .call()
      .content()
    const [tool] = collector.ofType('model-request')[0]!.options.tools!
    expect(tool).toEqual({
      name: 'vault',
      description: 'Opens the vault with [redacted]',
      inputSchema: { type: 'object', properties: { password: { type: 'string' } } },
    })
  })

  it('masks a secret registered after a run in the same tool definition of the next run', async () => {
    const secret = 'late-secret-3c2b1a0f9e'
    const late = defineTool({
      name: 'late',
      description: `Uses ${secret}`,
      inputSchema: { type: 'object', properties: {} },
      execute: () => 'done',
    })
    const collector = new TraceCollector()
    const client = ChatClient.builder(new ScriptedChatModel(['one', 'two']))
      .defaultTools(late)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    await client.prompt('first').call().content()
    registerSecret(secret)
    await client.prompt('second').call().content()
    const [first, second] = collector.ofType('model-request').map((event) => event.options.tools![0]!.description)
    expect(first).toBe(`Uses ${secret}`)
    expect(second).toBe('Uses [redacted]')
  })
})

/** A model that streams `reasoning` in the given deltas, then answers `answer`. */
function thinkingModel(reasoning: string[], answer: string): ChatModel {
  const chunk = (text: string, thought?: string): ChatResponse => ({
    results: [
      { output: { role: 'assistant', text, toolCalls: [], ...(thought ? { reasoning: thought } : {}) }, metadata: {} },
    ],
    metadata: {},
  })
  return {
    provider: 'test',
    call: () => Promise.reject(new Error('this model only streams')),
    stream: async function* () {
      for (const thought of reasoning) yield chunk('', thought)
      yield chunk(answer)
    },
  }
}

async function observed(
  client: ChatClientBuilder,
  run: (client: ChatClient) => Promise<unknown>,
): Promise<TraceEvent[]> {
  const collector = new TraceCollector()
  await run(client.defaultAdvisors(new ObserverAdvisor({ sink: collector, performanceTrack: false })).build())
  return collector.events
}

describe('ObserverAdvisor keeps secrets out of every channel of the trace', () => {
  it('masks a registered key the model echoes in its thinking, split over many reasoning deltas', async () => {
    const key = 'sk-think-LEAK-0a1b2c3d4e5f6a7b8c9d'
    registerSecret(key)
    const deltas = ['I was given ', ...(key.match(/.{1,3}/g) ?? []), ' as the key.']
    const events = await observed(ChatClient.builder(thinkingModel(deltas, 'Done.')), async (client) => {
      for await (const _ of client.prompt('think').stream().content());
    })
    const reasoning = events.map((event) => (event.type === 'model-chunk' ? (event.reasoning ?? '') : '')).join('')
    expect(reasoning).toBe('I was given [redacted] as the key.')
    expect(JSON.stringify(events)).not.toContain(key.slice(0, 12))
  })

  it('masks tool definitions with the rules given to the observer: an MCP token echoed in a description', async () => {
    const token = 'mcp-bearer-0123456789abcdef'
    const redaction = secretRules({ Authorization: `Bearer ${token}` })
    const echoing = defineTool({
      name: 'search',
      description: `Searches. Authorization: Bearer ${token}`,
      inputSchema: { type: 'object', properties: { query: { type: 'string', description: `uses ${token}` } } },
      execute: () => 'found',
    })
    const collector = new TraceCollector()
    await ChatClient.builder(new ScriptedChatModel(['ok', 'ok']))
      .defaultTools(echoing)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector, redact: redaction, performanceTrack: false }))
      .build()
      .prompt('q')
      .call()
      .content()
    const [request] = collector.ofType('model-request')
    expect(JSON.stringify(collector.events)).not.toContain(token)
    expect(request!.options.tools![0]!.inputSchema).toEqual({
      type: 'object',
      properties: { query: { type: 'string', description: 'uses [redacted]' } },
    })
  })

  it('keeps the fields of a tool schema, masks the example values of a field that names a secret and the value of any other such key', async () => {
    const vault = defineTool({
      name: 'vault',
      description: 'Opens the vault',
      inputSchema: {
        type: 'object',
        properties: {
          api_key: { type: 'string', default: 'k-default-123', examples: ['k-example-456'] },
          city: { type: 'string', default: 'Porto' },
        },
        'x-api-key': 'schema-extension-secret',
      },
      execute: () => 'open',
    })
    const events = await observed(ChatClient.builder(new ScriptedChatModel(['ok'])).defaultTools(vault), (client) =>
      client.prompt('q').call().content(),
    )
    const request = events.find((event) => event.type === 'model-request')
    expect(request?.type === 'model-request' && request.options.tools![0]!.inputSchema).toEqual({
      type: 'object',
      properties: {
        api_key: { type: 'string', default: '[redacted]', examples: '[redacted]' },
        city: { type: 'string', default: 'Porto' },
      },
      'x-api-key': '[redacted]',
    })
  })

  it('masks provider options under keys that name a secret by a word, at any depth, and keeps the rest', async () => {
    const events = await observed(ChatClient.builder(new ScriptedChatModel(['ok'])), (client) =>
      client
        .prompt('q')
        .options({
          providerOptions: {
            openai: { user_secret: 'US-1', max_tokens: 5, nested: { clientSecret: 'CS-2', 'X-Goog-Api-Key': 'GK-3' } },
            proxy: { DB_PASSWORD: 'PW-4', cache_key: 'c-1', budget_tokens: 9 },
          },
        })
        .call()
        .content(),
    )
    const request = events.find((event) => event.type === 'model-request')
    expect(request?.type === 'model-request' && request.options.providerOptions).toEqual({
      openai: {
        user_secret: '[redacted]',
        max_tokens: 5,
        nested: { clientSecret: '[redacted]', 'X-Goog-Api-Key': '[redacted]' },
      },
      proxy: { DB_PASSWORD: '[redacted]', cache_key: 'c-1', budget_tokens: 9 },
    })
  })

  it('masks the arguments of an approval edit as it masks the arguments of the call', async () => {
    const queue = new ApprovalQueue()
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'c1', name: 'login', arguments: { user: 'ann', password: PASSWORD } }] },
      'Logged in.',
    ])
    const collector = new TraceCollector()
    const client = ChatClient.builder(model)
      .defaultTools(login)
      .defaultAdvisors(
        new ObserverAdvisor({ sink: collector, performanceTrack: false }),
        ToolApprovalAdvisor.builder().policy('login', 'always').handler(queue.handler).build(),
      )
      .build()
    const unsubscribe = queue.subscribe(() => {
      const pending = queue.pending()[0]
      if (pending) queue.decide(pending.id, { type: 'edit', arguments: { user: 'bob', password: 'EDITED-PW-9' } })
    })
    await client.prompt('log me in').call().content()
    unsubscribe()
    const decided = collector.ofType('approval').find((event) => event.phase === 'decided')!
    expect(JSON.stringify(collector.events)).not.toContain('EDITED-PW-9')
    expect(JSON.parse(decided.detail!)).toEqual({ user: 'bob', password: '[redacted]' })
  })
})

describe('ObserverAdvisor leaves opaque provider payloads as they came', () => {
  // Blobs that happen to hold what a key pattern matches, and a registered secret.
  const registered = 'opaque-registered-secret-42'
  registerSecret(registered)
  const encrypted = `gAAAAABo0aK1-sk-${'A1b2C3d4E5f6G7h8'}${registered}==`
  const signature = `EqQBCkYIBxgCKkB sk-${'x'.repeat(20)} Bearer ${'y'.repeat(20)}`
  const thinker: Message = {
    role: 'assistant',
    text: '',
    toolCalls: [{ id: 'c1', name: 'login', arguments: '{"user":"ann"}' }],
    metadata: {
      anthropicThinking: [
        { type: 'thinking', thinking: `I will use ${registered}`, signature },
        { type: 'redacted_thinking', data: encrypted },
      ],
      openaiResponsesItems: [{ type: 'reasoning', item: { id: 'rs_1', encrypted_content: encrypted, summary: [] } }],
    },
  }
  const history: Message[] = [
    { role: 'user', text: 'log me in' },
    thinker,
    { role: 'tool', responses: [{ id: 'c1', name: 'login', responseData: 'welcome ann' }] },
  ]

  async function recorded(): Promise<TraceEvent[]> {
    return observed(ChatClient.builder(new ScriptedChatModel(['Done.'])).defaultTools(login), (client) =>
      client
        .prompt()
        .messages(...history)
        .call()
        .content(),
    )
  }

  function tracedMetadata(events: readonly TraceEvent[]): Record<string, unknown> | undefined {
    const request = events.find((event) => event.type === 'model-request')
    const assistant =
      request?.type === 'model-request' ? request.messages.find((m) => m.role === 'assistant') : undefined
    return assistant?.metadata
  }

  it('keeps encrypted reasoning, signatures and redacted thinking byte for byte, and masks the readable thinking', async () => {
    const metadata = tracedMetadata(await recorded())
    expect(metadata).toEqual({
      anthropicThinking: [
        { type: 'thinking', thinking: 'I will use [redacted]', signature },
        { type: 'redacted_thinking', data: encrypted },
      ],
      openaiResponsesItems: [{ type: 'reasoning', item: { id: 'rs_1', encrypted_content: encrypted, summary: [] } }],
    })
  })

  it('keeps them byte for byte through a trace file and a cassette', async () => {
    const events = await recorded()
    expect(tracedMetadata(importTrace(exportTrace(events)))).toEqual(tracedMetadata(events))
    const sent = cassetteFromTrace(events).interactions[0]!.request.messages
    expect(sent.find((message) => message.role === 'assistant')?.metadata).toEqual(tracedMetadata(events))
  })
})
