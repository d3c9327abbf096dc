import { describe, expect, it } from 'vitest'
import { ApprovalQueue, ToolApprovalAdvisor } from '../advisors'
import { imagePart, type StreamPart } from '../core'
import { collect } from '../core/testing/collect'
import { ScriptedChatModel } from '../models'
import { defineTool } from '../tools'
import { ChatClient } from './client'

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  execute: ({ city }) => `sunny in ${String(city)}`,
})

const twoRounds = () =>
  new ScriptedChatModel([
    { text: 'Let me check.', toolCalls: [{ id: 'w1', name: 'weather', arguments: { city: 'Oslo' } }] },
    { text: 'Sunny.', usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 } },
  ])

describe('.stream().parts()', () => {
  it('gives text, tool calls as they stream, tool results and rounds in the order they happened', async () => {
    const client = ChatClient.builder(twoRounds()).defaultTools(weather).build()
    const parts = await collect(client.prompt('Weather in Oslo?').stream().parts())
    expect(parts).toEqual([
      { type: 'round-start', round: 1 },
      { type: 'text-delta', round: 1, delta: 'Let ' },
      { type: 'text-delta', round: 1, delta: 'me ' },
      { type: 'text-delta', round: 1, delta: 'check.' },
      { type: 'tool-call-start', round: 1, id: 'w1', name: 'weather' },
      { type: 'tool-call-delta', round: 1, id: 'w1', argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', round: 1, id: 'w1', argumentsDelta: '"Oslo"}' },
      { type: 'tool-call', round: 1, id: 'w1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { type: 'round-end', round: 1, finishReason: 'tool_calls' },
      { type: 'tool-start', round: 1, id: 'w1', name: 'weather' },
      { type: 'tool-result', round: 1, id: 'w1', name: 'weather', result: 'sunny in Oslo', isError: false },
      { type: 'round-start', round: 2 },
      { type: 'text-delta', round: 2, delta: 'Sunny.' },
      { type: 'round-end', round: 2, finishReason: 'stop' },
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
        model: 'scripted',
      },
    ] satisfies StreamPart[])
  })

  it('leaves content() and chatResponse() as they were: text deltas only, no tool-call progress', async () => {
    const client = ChatClient.builder(twoRounds()).defaultTools(weather).build()
    expect(await collect(client.prompt('Weather?').stream().content())).toEqual(['Let ', 'me ', 'check.', 'Sunny.'])
    const model = twoRounds()
    const chunks = await collect(
      ChatClient.builder(model).defaultTools(weather).build().prompt('?').stream().chatResponse(),
    )
    expect(chunks.some((chunk) => chunk.results[0]!.output.toolCallDeltas)).toBe(false)
    expect(model.prompts[0]!.options.toolCallDeltas).toBeUndefined()
  })

  it('reports an approval request while the call waits, and the decision after', async () => {
    const approvals = new ApprovalQueue()
    const advisor = ToolApprovalAdvisor.builder().handler(approvals.handler).policy('weather', 'always').build()
    const client = ChatClient.builder(twoRounds()).defaultTools(weather).defaultAdvisors(advisor).build()
    const seen: StreamPart[] = []
    for await (const part of client.prompt('Weather?').stream().parts()) {
      seen.push(part)
      // The stream waits on the user here: the event reached the reader while no chunk was coming.
      if (part.type === 'approval-requested') approvals.decide(approvals.pending()[0]!.id, { type: 'approve' })
    }
    const types = seen.map((part) => part.type)
    expect(types.slice(types.indexOf('tool-call'))).toEqual([
      'tool-call',
      'approval-requested',
      'approval-decided',
      'round-end',
      'tool-start',
      'tool-result',
      'round-start',
      'text-delta',
      'round-end',
      'finish',
    ])
    expect(seen.find((part) => part.type === 'approval-requested')).toEqual({
      type: 'approval-requested',
      round: 1,
      id: 'w1',
      name: 'weather',
      arguments: '{"city":"Oslo"}',
    })
  })

  it('reports a failing tool as an error result, and a returnDirect answer as text', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'Fails',
      inputSchema: { type: 'object' },
      execute: () => {
        throw new Error('no network')
      },
    })
    const direct = defineTool({
      name: 'direct',
      description: 'Answers directly',
      inputSchema: { type: 'object' },
      returnDirect: true,
      execute: () => 'the direct answer',
    })
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'b1', name: 'broken' }] },
      { toolCalls: [{ id: 'd1', name: 'direct' }] },
    ])
    const parts = await collect(
      ChatClient.builder(model).defaultTools(broken, direct).build().prompt('go').stream().parts(),
    )
    const result = parts.find((part) => part.type === 'tool-result' && part.id === 'b1')
    expect(result).toMatchObject({ isError: true, result: expect.stringMatching(/^Error:.*no network/) as string })
    expect(parts.at(-2)).toEqual({ type: 'text-delta', round: 2, delta: 'the direct answer' })
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'returnDirect' })
  })

  it('sends attachments given with the user text as parts of the user message', async () => {
    const model = new ScriptedChatModel(['A cat.'])
    const image = imagePart('data:image/png;base64,iVBORw0KGgo=')
    await ChatClient.create(model).prompt().user('What is this?', [image]).call().content()
    expect(model.prompts[0]!.messages).toEqual([
      { role: 'user', text: 'What is this?', parts: [{ type: 'text', text: 'What is this?' }, image] },
    ])
  })

  it('stops the call when the reader stops early', async () => {
    const model = new ScriptedChatModel([{ text: 'one two three four', delayMs: 5 }])
    const seen: StreamPart[] = []
    for await (const part of ChatClient.create(model).prompt('count').stream().parts()) {
      seen.push(part)
      if (part.type === 'text-delta') break
    }
    expect(seen.map((part) => part.type)).toEqual(['round-start', 'text-delta'])
  })
})
