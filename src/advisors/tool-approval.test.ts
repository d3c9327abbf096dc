import { describe, expect, it, vi } from 'vitest'
import {
  HIGHEST_PRECEDENCE,
  assistantMessage,
  userMessage,
  type AssistantMessage,
  type ToolResponseMessage,
} from '../core'
import { ChatClient } from '../client'
import { MessageWindowChatMemory } from '../memory'
import { MessageChatMemoryAdvisor } from './memory'
import { ScriptedChatModel } from '../models'
import { collect } from '../core/testing/collect'
import { defineTool } from '../tools'
import { TraceCollector } from '../trace'
import { ObserverAdvisor } from './observer/observer'
import { ApprovalQueue, type ApprovalDecision, type ApprovalRequest } from './approval-queue'
import { ToolApprovalAdvisor } from './tool-approval'

function notesApp() {
  const notes = new Map([
    ['1', 'buy milk'],
    ['2', 'call Ann'],
  ])
  const deleteNote = defineTool({
    name: 'delete_note',
    description: 'Deletes a note',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const,
    execute: ({ id }) => (notes.delete(id) ? `deleted note ${id}` : `no note ${id}`),
  })
  const listNotes = defineTool({
    name: 'list_notes',
    description: 'Lists notes',
    inputSchema: { type: 'object' },
    execute: () => [...notes.keys()],
  })
  return { notes, tools: [deleteNote, listNotes] }
}

const toolAnswer = (model: ScriptedChatModel, call: number) =>
  (model.prompts[call]!.messages.at(-1) as ToolResponseMessage).responses

function setup(
  decide: (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>,
  script: ConstructorParameters<typeof ScriptedChatModel>[0],
) {
  const app = notesApp()
  const asked: ApprovalRequest[] = []
  const approval = ToolApprovalAdvisor.builder()
    .policy('delete_note', 'always')
    .handler(async (request) => {
      asked.push(request)
      return decide(request)
    })
    .build()
  const model = new ScriptedChatModel(script)
  const collector = new TraceCollector()
  const client = ChatClient.builder(model)
    .defaultTools(...app.tools)
    .defaultAdvisors(approval, new ObserverAdvisor({ sink: collector }))
    .build()
  return { ...app, asked, model, client, collector }
}

const deleteCall = (id: string, callId = `del-${id}`) => ({ id: callId, name: 'delete_note', arguments: { id } })

describe('ToolApprovalAdvisor', () => {
  it('runs an approved call', async () => {
    const { notes, asked, client } = setup(() => ({ type: 'approve' }), [{ toolCalls: [deleteCall('1')] }, 'Deleted.'])
    await client.prompt('Delete note 1').call().content()
    expect(asked.map((a) => a.arguments)).toEqual([{ id: '1' }])
    expect(notes.has('1')).toBe(false)
  })

  it('runs an edited call with the new arguments, and the history shows them', async () => {
    const { notes, model, client } = setup(
      () => ({ type: 'edit', arguments: { id: '2' } }),
      [{ toolCalls: [deleteCall('1')] }, 'Deleted.'],
    )
    await client.prompt('Delete note 1').call().content()
    expect([notes.has('1'), notes.has('2')]).toEqual([true, false])
    expect(model.prompts[1]!.messages[1]).toMatchObject({ role: 'assistant', toolCalls: [{ arguments: '{"id":"2"}' }] })
  })

  it('does not run a rejected call and tells the model what the user said, without Error:', async () => {
    const { notes, model, client } = setup(
      () => ({ type: 'reject', message: 'keep it' }),
      [{ toolCalls: [deleteCall('1')] }, 'Kept.'],
    )
    expect(await client.prompt('Delete note 1').call().content()).toBe('Kept.')
    expect(notes.has('1')).toBe(true)
    const [answer] = toolAnswer(model, 1)
    expect(answer!.responseData).toBe(
      'The user declined this call to delete_note, so it was not run. The user said: "keep it". Do not try it again for this request; continue without it or ask the user what to do.',
    )
    expect(model.prompts[1]!.messages.filter((m) => m.role === 'assistant')).toHaveLength(1)
  })

  it('asks only for the tools its policy names', async () => {
    const { asked, client } = setup(
      () => ({ type: 'approve' }),
      [{ toolCalls: [{ name: 'list_notes' }] }, 'Two notes.'],
    )
    await client.prompt('List').call().content()
    expect(asked).toHaveLength(0)
  })

  it('decides a policy from the arguments', async () => {
    const app = notesApp()
    const asked: string[] = []
    const approval = ToolApprovalAdvisor.builder()
      .policy('delete_note', (args) => (args as { id: string }).id === '2')
      .handler(async (request) => (asked.push(request.toolCall.id), { type: 'approve' }))
      .build()
    const model = new ScriptedChatModel([{ toolCalls: [deleteCall('1'), deleteCall('2')] }, 'ok'])
    await ChatClient.builder(model)
      .defaultTools(...app.tools)
      .defaultAdvisors(approval)
      .build()
      .prompt('q')
      .call()
      .content()
    expect(asked).toEqual(['del-2'])
  })

  it('decides parallel calls one by one', async () => {
    const queue = new ApprovalQueue()
    const app = notesApp()
    const approval = ToolApprovalAdvisor.builder().policy('delete_note', 'always').handler(queue.handler).build()
    const model = new ScriptedChatModel([{ toolCalls: [deleteCall('1'), deleteCall('2')] }, 'Done.'])
    const answer = ChatClient.builder(model)
      .defaultTools(...app.tools)
      .defaultAdvisors(approval)
      .build()
      .prompt('Delete both')
      .call()
      .content()
    await expect.poll(() => queue.pending().length).toBe(1)
    expect(queue.pending()[0]!.id).toBe('del-1')
    queue.decide('del-1', { type: 'reject', message: 'not this one' })
    await expect.poll(() => queue.pending()[0]?.id).toBe('del-2')
    queue.decide('del-2', { type: 'approve' })
    expect(await answer).toBe('Done.')
    expect([app.notes.has('1'), app.notes.has('2')]).toEqual([true, false])
  })

  it('abandons a pending approval cleanly on abort', async () => {
    const queue = new ApprovalQueue()
    const app = notesApp()
    const approval = ToolApprovalAdvisor.builder().policy('delete_note', 'always').handler(queue.handler).build()
    const model = new ScriptedChatModel([{ toolCalls: [deleteCall('1')] }, 'never'])
    const controller = new AbortController()
    const answer = ChatClient.builder(model)
      .defaultTools(...app.tools)
      .defaultAdvisors(approval)
      .build()
      .prompt('q')
      .signal(controller.signal)
      .call()
      .content()
    await expect.poll(() => queue.pending().length).toBe(1)
    controller.abort()
    await expect(answer).rejects.toMatchObject({ name: 'AbortError' })
    expect(queue.pending()).toHaveLength(0)
    expect(app.notes.has('1')).toBe(true)
    expect(model.prompts).toHaveLength(1)
  })

  it('shows each request and decision to observers', async () => {
    const { collector, client } = setup(() => ({ type: 'reject' }), [{ toolCalls: [deleteCall('1')] }, 'ok'])
    await client.prompt('q').call().content()
    expect(collector.ofType('approval').map((a) => [a.phase, a.decision ?? null, a.round])).toEqual([
      ['requested', null, 1],
      ['decided', 'reject', 1],
    ])
  })

  it('works on the stream path', async () => {
    const { notes, client } = setup(
      () => ({ type: 'approve' }),
      [{ text: 'On it.', toolCalls: [deleteCall('1')] }, 'Deleted.'],
    )
    expect((await collect(client.prompt('q').stream().content())).join('')).toBe('On it.Deleted.')
    expect(notes.has('1')).toBe(false)
  })

  it('resumes a conversation that ended waiting for an approval, without asking the model again', async () => {
    const { notes, asked, model, client } = setup(() => ({ type: 'approve' }), ['Deleted note 1.'])
    const history = [
      userMessage('Delete note 1'),
      assistantMessage('', [{ id: 'del-1', name: 'delete_note', arguments: '{"id":"1"}' }]),
    ]
    expect(
      await client
        .prompt()
        .messages(...history)
        .call()
        .content(),
    ).toBe('Deleted note 1.')
    expect(asked).toHaveLength(1)
    expect(notes.has('1')).toBe(false)
    expect(model.prompts).toHaveLength(1)
    expect(model.prompts[0]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
  })

  describe('with memory inside the loop', () => {
    function withMemory(decide: (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>) {
      const app = notesApp()
      const memory = MessageWindowChatMemory.builder().build()
      let waiting: (() => void) | undefined
      const approval = ToolApprovalAdvisor.builder()
        .policy('delete_note', 'always')
        .handler(async (request) => {
          await new Promise<void>((resolve) => (waiting = resolve))
          return decide(request)
        })
        .build()
      const model = new ScriptedChatModel([{ toolCalls: [deleteCall('1')] }, 'Done.'])
      const client = ChatClient.builder(model)
        .defaultTools(...app.tools)
        .defaultAdvisors(
          approval,
          MessageChatMemoryAdvisor.builder(memory)
            .order(HIGHEST_PRECEDENCE + 350)
            .build(),
        )
        .build()
      return { ...app, memory, client, model, release: () => waiting?.() }
    }

    it('saves the tool calls before the user decides, so a reload can resume the turn', async () => {
      const { memory, client, release } = withMemory(() => ({ type: 'approve' }))
      const answer = client.prompt('Delete note 1').call().content()
      await vi.waitFor(async () =>
        expect((await memory.get('default')).map((m) => m.role)).toEqual(['user', 'assistant']),
      )
      release()
      expect(await answer).toBe('Done.')
      expect((await memory.get('default')).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    })

    it('replaces the saved message when the user edits the arguments', async () => {
      const { memory, client, notes, release } = withMemory(() => ({ type: 'edit', arguments: { id: '2' } }))
      const answer = client.prompt('Delete note 1').call().content()
      await vi.waitFor(async () => expect(await memory.get('default')).toHaveLength(2))
      release()
      await answer
      expect(notes.has('2')).toBe(false)
      const stored = await memory.get('default')
      expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
      expect((stored[1] as AssistantMessage).toolCalls[0]!.arguments).toBe('{"id":"2"}')
    })
  })
})

describe('a tool that says it needs approval (defineTool needsApproval)', () => {
  function app(
    needsApproval: Parameters<typeof defineTool>[0]['needsApproval'],
    policies: Record<string, 'never'> = {},
  ) {
    const sent = defineTool({
      name: 'send_money',
      description: 'Sends money',
      inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } as const,
      ...(needsApproval === undefined ? {} : { needsApproval }),
      execute: ({ amount }) => `sent ${amount}`,
    })
    const asked: ApprovalRequest[] = []
    const builder = ToolApprovalAdvisor.builder().handler(async (request) => {
      asked.push(request)
      return { type: 'approve' }
    })
    for (const [name, policy] of Object.entries(policies)) builder.policy(name, policy)
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'a', name: 'send_money', arguments: { amount: 5 } }] },
      { toolCalls: [{ id: 'b', name: 'send_money', arguments: { amount: 500 } }] },
      'Done.',
    ])
    const client = ChatClient.builder(model).defaultTools(sent).defaultAdvisors(builder.build()).build()
    return { asked, run: () => client.prompt('Pay').call().content() }
  }

  it('is asked about on every call with needsApproval: true, and never without it', async () => {
    const always = app(true)
    await always.run()
    expect(always.asked.map((request) => request.toolCall.id)).toEqual(['a', 'b'])
    const never = app(undefined)
    await never.run()
    expect(never.asked).toEqual([])
  })

  it('is asked about when its rule says so for the arguments, with the context the call would run with', async () => {
    const seen: unknown[] = []
    const large = app(async (args, context) => {
      seen.push(context.toolCall.id)
      return (args as { amount: number }).amount > 100
    })
    await large.run()
    expect(large.asked.map((request) => request.toolCall.id)).toEqual(['b'])
    expect(seen).toEqual(['a', 'b'])
  })

  it('fails closed: a rule that throws asks the user', async () => {
    const broken = app(() => {
      throw new Error('no rule for this')
    })
    await broken.run()
    expect(broken.asked).toHaveLength(2)
  })

  it("gives way to the advisor's own policy for the tool", async () => {
    const overridden = app(true, { send_money: 'never' })
    await overridden.run()
    expect(overridden.asked).toEqual([])
  })

  it('refuses a needsApproval that is neither a boolean nor a function', () => {
    expect(() =>
      defineTool({
        name: 'x',
        description: '',
        inputSchema: {},
        needsApproval: 'yes' as unknown as boolean,
        execute: () => '',
      }),
    ).toThrow("needsApproval of tool 'x' must be true, false or a function of the arguments, got string")
  })
})

describe('a tool that needs approval where nothing asks', () => {
  it('is not run: the model is told why, and the turn goes on', async () => {
    const ran: number[] = []
    const pay = defineTool({
      name: 'pay',
      description: 'Pays',
      inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
      needsApproval: true,
      execute: ({ amount }) => (ran.push(amount as number), 'paid'),
    })
    const model = new ScriptedChatModel([
      { toolCalls: [{ id: 'p', name: 'pay', arguments: { amount: 5 } }] },
      'I could not pay.',
    ])
    const client = ChatClient.builder(model).defaultTools(pay).build()
    expect(await client.prompt('Pay 5').call().content()).toBe('I could not pay.')
    expect(ran).toEqual([])
    expect(toolAnswer(model, 1)[0]!.responseData).toMatch(
      /^Error: tool 'pay' needs the user's approval and nothing in this chain asks for it/,
    )
  })
})
