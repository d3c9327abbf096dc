import { describe, expect, it } from 'vitest'
import { MessageChatMemoryAdvisor } from '../advisors'
import { ObserverAdvisor } from '../advisors'
import { ChatClient } from '../client'
import { ChatMemory, InMemoryChatMemoryRepository, MessageWindowChatMemory } from '../memory'
import { ScriptedChatModel, type ScriptStep } from '../models'
import { defineTool } from '../tools'
import { ForkError, TraceCollector, TraceReader, exportTrace, forkPlan, importTrace, type TraceEvent } from '../trace'
import { forkRun } from './fork-run'

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const,
  execute: ({ city }) => `sunny in ${city}`,
})

const toolRound: ScriptStep = { text: '', toolCalls: [{ id: 't1', name: 'weather', arguments: { city: 'Paris' } }] }

function clientWith(script: ScriptStep[], sink: TraceCollector, memory?: ChatMemory) {
  const model = new ScriptedChatModel(script)
  const advisors = [new ObserverAdvisor({ sink, performanceTrack: false })]
  const client = ChatClient.builder(model)
    .defaultSystem('You are brief.')
    .defaultTools(weather)
    .defaultAdvisors(...advisors, ...(memory ? [MessageChatMemoryAdvisor.builder(memory).build()] : []))
    .build()
  return { client, model }
}

/** A recorded two-round tool run: the weather tool said "sunny in Paris", the model answered from it. */
async function recordedRun(): Promise<{ trace: TraceEvent[]; runId: string }> {
  const sink = new TraceCollector()
  const { client } = clientWith([toolRound, { text: 'It is sunny.' }], sink)
  await client.prompt('Weather in Paris?').call().content()
  return { trace: sink.events, runId: sink.runIds()[0]! }
}

const forkedRun = (events: TraceEvent[], original: string) => events.filter((event) => event.runId !== original)

describe('forkRun', () => {
  it('re-runs round 2 with an edited tool result: the model gets the recorded prompt with the new result, and only once', async () => {
    const { trace, runId } = await recordedRun()
    const sink = new TraceCollector()
    const { client, model } = clientWith([{ text: 'It is raining.' }], sink)

    const fork = await forkRun(client, { trace, runId, round: 2, edits: { toolResults: { t1: 'rain in Paris' } } })

    expect(fork.answer).toBe('It is raining.')
    expect(model.prompts).toHaveLength(1)
    expect(model.prompts[0]!.messages).toEqual([
      { role: 'system', text: 'You are brief.' },
      { role: 'user', text: 'Weather in Paris?' },
      { role: 'assistant', text: '', toolCalls: [{ id: 't1', name: 'weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', responses: [{ id: 't1', name: 'weather', responseData: 'rain in Paris' }] },
    ])
  })

  it('records the fork as a new run linked to the original, its rounds numbered on from the forked round', async () => {
    const { trace, runId } = await recordedRun()
    const sink = new TraceCollector()
    const { client } = clientWith([{ text: 'It is raining.' }], sink)

    const fork = await forkRun(client, { trace, runId, round: 2, edits: { toolResults: { t1: 'rain' } } })

    const events = forkedRun(sink.events, runId)
    expect(new Set(events.map((event) => event.runId))).toEqual(new Set([fork.runId]))
    expect(sink.ofType('run-start')[0]!.forkOf).toEqual({ runId, round: 2 })
    expect(sink.ofType('model-request').map((event) => event.round)).toEqual([2])
    expect(sink.ofType('run-end')[0]).toMatchObject({ status: 'ok', rounds: 2 })
  })

  it('keeps the link in a trace file: the reader shows the imported fork as a fork of the original', async () => {
    const { trace, runId } = await recordedRun()
    const sink = new TraceCollector()
    const { client } = clientWith([{ text: 'It is raining.' }], sink)
    const fork = await forkRun(client, { trace, runId, round: 2 })

    const reader = new TraceReader()
    for (const event of importTrace(exportTrace([...trace, ...sink.events]))) reader.add(event, false)

    expect(reader.run(fork.runId)!.forkOf).toEqual({ runId, round: 2 })
    expect(reader.run(runId)!.forkOf).toBeUndefined()
  })

  it('runs the tools again when the forked round asks for them, and carries the loop on to the answer', async () => {
    const { trace, runId } = await recordedRun()
    const sink = new TraceCollector()
    const { client, model } = clientWith(
      [{ text: '', toolCalls: [{ id: 't2', name: 'weather', arguments: { city: 'Lyon' } }] }, { text: 'Both sunny.' }],
      sink,
    )

    const fork = await forkRun(client, {
      trace,
      runId,
      round: 1,
      edits: { messages: [{ index: 1, text: 'Paris and Lyon?' }] },
    })

    expect(fork.answer).toBe('Both sunny.')
    expect(model.prompts[0]!.messages[1]).toEqual({ role: 'user', text: 'Paris and Lyon?' })
    expect(sink.ofType('tool-end').map((event) => [event.round, event.result])).toEqual([[1, 'sunny in Lyon']])
  })

  it('sends the edited options: model, temperature, and tool choice none when tools are off', async () => {
    const { trace, runId } = await recordedRun()
    const { client, model } = clientWith([{ text: 'No tools today.' }], new TraceCollector())

    await forkRun(client, {
      trace,
      runId,
      round: 1,
      edits: { options: { model: 'm-2', temperature: 0.7, tools: false } },
    })

    expect(model.prompts[0]!.options).toMatchObject({ model: 'm-2', temperature: 0.7, toolChoice: 'none' })
  })

  it('streams a fork just as well', async () => {
    const { trace, runId } = await recordedRun()
    const sink = new TraceCollector()
    const { client } = clientWith([{ text: 'It is raining.' }], sink)

    const fork = await forkRun(client, { trace, runId, round: 2 }, { stream: true })

    expect(fork.answer).toBe('It is raining.')
    expect(sink.ofType('run-start')[0]).toMatchObject({ mode: 'stream', forkOf: { runId, round: 2 } })
  })

  it('leaves the chat memory alone: a fork is an experiment, not a turn of the conversation', async () => {
    const { trace, runId } = await recordedRun()
    const repository = new InMemoryChatMemoryRepository()
    const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).build()
    await memory.add(ChatMemory.DEFAULT_CONVERSATION_ID, [{ role: 'user', text: 'Earlier question' }])
    const { client, model } = clientWith([{ text: 'It is raining.' }], new TraceCollector(), memory)

    await forkRun(client, { trace, runId, round: 2 })

    expect(model.prompts[0]!.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool'])
    expect(await memory.get(ChatMemory.DEFAULT_CONVERSATION_ID)).toEqual([{ role: 'user', text: 'Earlier question' }])
  })
})

describe('forkPlan: checking a fork against the trace it comes from', () => {
  it('finds the run when the trace holds only one', async () => {
    const { trace, runId } = await recordedRun()
    expect(forkPlan({ trace, round: 2 }).forkOf).toEqual({ runId, round: 2 })
  })

  it('refuses a round that was not recorded, naming the rounds that were', async () => {
    const { trace, runId } = await recordedRun()
    expect(() => forkPlan({ trace, runId, round: 3 })).toThrow(
      new ForkError(`Round 3 of run ${runId} has no recorded request (rounds with one: 1, 2)`),
    )
  })

  it('refuses a tool result for a call the prompt does not answer', async () => {
    const { trace } = await recordedRun()
    expect(() => forkPlan({ trace, round: 2, edits: { toolResults: { nope: 'x' } } })).toThrow(
      "Round 2's prompt has no result for tool call nope (it has: t1)",
    )
  })

  it('refuses to edit tool results as message text, and messages that are not there', async () => {
    const { trace } = await recordedRun()
    expect(() => forkPlan({ trace, round: 2, edits: { messages: [{ index: 3, text: 'x' }] } })).toThrow(
      'holds tool results; edit them by tool call id',
    )
    expect(() => forkPlan({ trace, round: 2, edits: { messages: [{ index: 9, text: 'x' }] } })).toThrow(
      'there is no message 9',
    )
  })

  it('asks which run to fork when the trace holds several', async () => {
    const first = await recordedRun()
    const second = await recordedRun()
    expect(() => forkPlan({ trace: [...first.trace, ...second.trace], round: 1 })).toThrow('say which one to fork')
  })
})
