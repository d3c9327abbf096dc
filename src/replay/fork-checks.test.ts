// forkRun takes nothing on trust: the request, its edits, the trace's events and the prompt they
// make are checked, and an attachment whose bytes the trace left out refuses the fork by name.
import { describe, expect, it } from 'vitest'
import { ObserverAdvisor } from '../advisors'
import { ChatClient } from '../client'
import { imagePart, filePart, textPart, type Message, type UserMessage } from '../core'
import { ScriptedChatModel, type ScriptStep } from '../models'
import { defineTool } from '../tools'
import { ForkError, TraceCollector, exportTrace, forkPlan, importTrace, type TraceEvent } from '../trace'
import { forkRun } from './fork-run'

const weather = defineTool({
  name: 'weather',
  description: 'Weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } as const,
  execute: ({ city }) => `sunny in ${city}`,
})

const toolRound: ScriptStep = { text: '', toolCalls: [{ id: 't1', name: 'weather', arguments: { city: 'Paris' } }] }

function clientWith(script: ScriptStep[], sink = new TraceCollector()) {
  const model = new ScriptedChatModel(script)
  const client = ChatClient.builder(model)
    .defaultSystem('You are brief.')
    .defaultTools(weather)
    .defaultAdvisors(new ObserverAdvisor({ sink, performanceTrack: false }))
    .build()
  return { client, model }
}

/** A recorded run of two rounds (a tool call, then the answer), or of one round with `user` as its question. */
async function recorded(user?: Message): Promise<{ trace: TraceEvent[]; runId: string }> {
  const sink = new TraceCollector()
  const { client } = clientWith(user ? [{ text: 'A cat.' }] : [toolRound, { text: 'It is sunny.' }], sink)
  await (user ? client.prompt().messages(user) : client.prompt('Weather in Paris?')).call().content()
  return { trace: sink.events, runId: sink.runIds()[0]! }
}

function refusal(run: () => unknown): ForkError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ForkError)
    return error as ForkError
  }
  throw new Error('the fork was not refused')
}

/** Round `round`'s recorded request with its messages replaced, as a hand-edited trace file would have it. */
function withPrompt(trace: readonly TraceEvent[], round: number, messages: Message[]): TraceEvent[] {
  return trace.map((event) =>
    event.type === 'model-request' && event.round === round ? { ...event, messages, shared: undefined } : event,
  )
}

describe('forkPlan refuses edits it cannot apply as asked, with a ForkError', () => {
  it('a tool result that is not a string (a number, null, an object, true)', async () => {
    const { trace } = await recorded()
    for (const result of [42, null, { text: 'rain' }, true, undefined])
      expect(
        refusal(() => forkPlan({ trace, round: 2, edits: { toolResults: { t1: result as unknown as string } } }))
          .message,
      ).toMatch(
        result === undefined ? /^Round 2's prompt|must be a string/ : /The new result of tool call t1 must be a string/,
      )
    for (const results of [[], 'rain', 7])
      expect(
        refusal(() =>
          forkPlan({ trace, round: 2, edits: { toolResults: results as unknown as Record<string, string> } }),
        ).message,
      ).toContain('edits.toolResults must be an object')
  })

  it('a message index that is not a position of the prompt: -1, 1.5, 99, NaN, "1", null', async () => {
    const { trace } = await recorded()
    for (const index of [-1, 1.5, 99, 4, Number.NaN, Infinity, '1', null, undefined])
      expect(
        refusal(() => forkPlan({ trace, round: 2, edits: { messages: [{ index: index as number, text: 'x' }] } }))
          .message,
      ).toMatch(/^Round 2's prompt has 4 messages \(0 to 3\); there is no message /)
  })

  it('a new text that is not a string, an edit that is not { index, text }, a misspelt field', async () => {
    const { trace } = await recorded()
    const plan = (edits: unknown) => () => forkPlan({ trace, round: 2, edits: edits as never })
    expect(refusal(plan({ messages: [{ index: 1, text: 5 }] })).message).toBe(
      'The new text of message 1 must be a string, got 5',
    )
    expect(refusal(plan({ messages: [null] })).message).toBe('edits.messages[0] must be { index, text }, got null')
    expect(refusal(plan({ messages: { index: 1, text: 'x' } })).message).toContain('edits.messages must be an array')
    expect(refusal(plan({ messages: [{ index: 1, txt: 'x' }] })).message).toBe(
      "Unknown field 'txt' in edits.messages[0] (known: index, text)",
    )
    expect(refusal(plan({ toolResult: { t1: 'x' } })).message).toBe(
      "Unknown field 'toolResult' in The edits of a fork (known: messages, toolResults, options)",
    )
    expect(refusal(plan({ options: { temprature: 0.5 } })).message).toContain("Unknown field 'temprature'")
    expect(refusal(plan({ options: { tools: 'no' } })).message).toBe(
      'edits.options.tools must be true or false, got "no"',
    )
    expect(refusal(plan({ options: { temperature: -1 } })).message).toContain('temperature of a fork')
    expect(refusal(plan({ options: { model: ' ' } })).message).toBe('The model of a fork must be a name')
    expect(refusal(plan('all')).message).toBe('The edits of a fork must be an object, got "all"')
  })
})

describe('forkPlan checks raw data: JSON that never went through importTrace gives a ForkError, never a TypeError', () => {
  it('a request, trace, event, run id or round of the wrong shape', async () => {
    const { trace, runId } = await recorded()
    const raw = JSON.parse(JSON.stringify(trace)) as Array<Record<string, unknown>>
    const requests: unknown[] = [
      null,
      'trace',
      { round: 1 },
      { trace: { events: raw }, round: 1 },
      { trace: [null], round: 1 },
      { trace: [...raw, { type: 'model-request' }], round: 1 },
      { trace: raw.map((event) => ({ ...event, messages: 'hi' })), round: 1 },
      { trace: raw.map((event) => ({ ...event, runId: 7 })), round: 1 },
      { trace: raw, runId: 7, round: 1 },
      { trace: raw, runId, round: '1' },
      { trace: raw, runId, round: 0 },
      { trace: raw, runId, round: 1.5 },
      { trace: [], round: 1 },
    ]
    for (const request of requests) refusal(() => forkPlan(request as never))
    expect(refusal(() => forkPlan({ trace: [null] as never, round: 1 })).message).toMatch(
      /^Event 0 of the trace is not a trace event: /,
    )
    expect(forkPlan({ trace: raw as unknown as TraceEvent[], round: 2 }).messages).toHaveLength(4)
  })

  it('a request that shares more messages than the request before it had', async () => {
    const { trace } = await recorded()
    const broken = trace.map((event) =>
      event.type === 'model-request' && event.round === 2 ? { ...event, shared: 9 } : event,
    )
    expect(refusal(() => forkPlan({ trace: broken, round: 2 })).message).toContain('shares 9 messages')
  })
})

describe('forkPlan refuses a prompt no model could be sent: a hand-edited trace that importTrace passes', () => {
  const user: Message = { role: 'user', text: 'Weather in Paris?' }
  const system: Message = { role: 'system', text: 'You are brief.' }
  const t1 = { id: 't1', name: 'weather', arguments: '{}' }
  const call: Message = { role: 'assistant', text: '', toolCalls: [t1] }
  const result: Message = { role: 'tool', responses: [{ id: 't1', name: 'weather', responseData: 'sunny' }] }
  const cases: Array<[string, Message[], string]> = [
    ['the user message lost, a tool result first', [result, system, call, result], 'it has no user message'],
    ['a system message after the conversation began', [user, system, call, result], 'message 1 (system) comes after'],
    ['an orphan tool result', [system, user, result], 'message 2 (tool) answers tool call t1, which'],
    ['one call answered twice', [system, user, call, result, result], 'message 4 (tool) answers tool call t1'],
    [
      'a result of another id',
      [system, user, call, { ...result, responses: [{ ...result.responses[0]!, id: 't9' }] }],
      'answers tool call t9',
    ],
    [
      'a call left without its result mid-prompt',
      [system, user, call, user],
      'message 2 (assistant) leaves tool call t1 without a result before message 3',
    ],
    ['a tool message with no result', [system, user, call, { role: 'tool', responses: [] }], 'holds no tool result'],
    ['two calls with one id', [system, user, { ...call, toolCalls: [t1, t1] }], 'makes two tool calls with one id'],
  ]

  for (const [name, messages, expected] of cases)
    it(`${name}, also after a trace file`, async () => {
      const { trace } = await recorded()
      const edited = importTrace(exportTrace(withPrompt(trace, 2, messages)))
      const { client, model } = clientWith([{ text: 'never' }])
      const error = refusal(() => forkPlan({ trace: edited, round: 2 }))
      expect(error.message).toContain(expected)
      await expect(forkRun(client, { trace: edited, round: 2 })).rejects.toThrow(ForkError)
      expect(model.prompts).toHaveLength(0)
    })

  it('still forks a prompt that ends in calls without results (the loop runs their tools first)', async () => {
    const { trace } = await recorded()
    const { client, model } = clientWith([{ text: 'Sunny.' }])
    const fork = await forkRun(client, { trace: withPrompt(trace, 2, [system, user, call]), round: 2 })
    expect(fork.answer).toBe('Sunny.')
    expect(model.prompts[0]!.messages.at(-1)).toMatchObject({ role: 'tool' })
  })
})

describe('forkRun and attachments: the bytes a trace left out are found again in the page, or the fork is refused', () => {
  const question = (...parts: UserMessage['parts'] & object): UserMessage => ({
    role: 'user',
    text: 'What is this?',
    parts: [textPart('What is this?'), ...parts],
  })

  it('sends the same Blob again when the run was recorded in this page', async () => {
    const blob = new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' })
    const { trace } = await recorded(question(imagePart(blob, { name: 'cat.png' })))
    const { client, model } = clientWith([{ text: 'Still a cat.' }])

    await forkRun(client, { trace, round: 1 })

    const sent = model.prompts[0]!.messages[1] as UserMessage
    expect(sent.parts![1]).toMatchObject({ type: 'image', name: 'cat.png', mediaType: 'image/png' })
    expect((sent.parts![1] as { image: unknown }).image).toBe(blob)
  })

  it('sends a file Blob again too, and a small data URL and an https URL as they were', async () => {
    const pdf = new Blob(['%PDF-1.4'], { type: 'application/pdf' })
    const small = 'data:image/png;base64,iVBORw0KGgo='
    const { trace } = await recorded(
      question(filePart(pdf, { name: 'a.pdf' }), imagePart(small), imagePart('https://example.com/cat.png')),
    )
    const { client, model } = clientWith([{ text: 'ok' }])

    await forkRun(client, { trace, round: 1 })

    const parts = (model.prompts[0]!.messages[1] as UserMessage).parts!
    expect((parts[1] as { data: unknown }).data).toBe(pdf)
    expect(parts[2]).toMatchObject({ image: small })
    expect(parts[3]).toMatchObject({ image: 'https://example.com/cat.png' })
  })

  it('sends the bytes of a large data URL and of a file given as a data URL again when recorded in this page', async () => {
    const large = `data:image/png;base64,${'AAEC'.repeat(20 * 1024)}`
    const { trace } = await recorded(
      question(imagePart(large, { name: 'big.png' }), filePart('data:text/plain;base64,aGk=', { name: 'a.txt' })),
    )
    const { client, model } = clientWith([{ text: 'ok' }])

    await forkRun(client, { trace, round: 1 })

    const parts = (model.prompts[0]!.messages[1] as UserMessage).parts!
    const image = (parts[1] as { image: Blob }).image
    expect(image.type).toBe('image/png')
    expect(new Uint8Array(await image.arrayBuffer()).slice(0, 6)).toEqual(new Uint8Array([0, 1, 2, 0, 1, 2]))
    expect(image.size).toBe(3 * 20 * 1024)
    expect(await (parts[2] as { data: Blob }).data.text()).toBe('hi')
  })

  it('refuses, naming the part, bytes the trace left out, a Blob of another page, a masked URL', async () => {
    const cases: Array<[UserMessage, RegExp]> = [
      [
        question(filePart('aGk=', { name: 'a.txt', mediaType: 'text/plain' })),
        /had a file \(part 1, a\.txt, text\/plain.*\) whose bytes the trace left out/,
      ],
      [
        question(imagePart(`https://example.com/cat.png?key=sk-${'a'.repeat(24)}`)),
        /had an image \(part 1.*\) whose URL held a secret and was masked/,
      ],
    ]
    for (const [message, expected] of cases) {
      const { trace } = await recorded(message)
      const { client, model } = clientWith([{ text: 'never' }])
      await expect(forkRun(client, { trace, round: 1 })).rejects.toThrow(expected)
      expect(model.prompts).toHaveLength(0)
    }
    const { trace } = await recorded(question(imagePart(new Blob(['x'], { type: 'image/png' }))))
    const elsewhere = JSON.parse(exportTrace(trace).replace(/blob:[^"]+/g, 'blob:nodedata:0000-from-another-page')) as {
      events: TraceEvent[]
    }
    expect(refusal(() => forkPlan({ trace: elsewhere.events, round: 1 })).message).toMatch(
      /had an image \(part 1, image\/png, 1 bytes\) that was a Blob of the page that recorded the run; .*blob:nodedata:0000-from-another-page is not one of this page's/,
    )
  })
})
