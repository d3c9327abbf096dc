import { describe, expect, it } from 'vitest'
import { WEATHER_TOOL, weather } from './apps/shared'
import { columnsOf, longestChain, median, ratio, spreadOf } from './columns.mjs'
import {
  ANSWER,
  ARGUMENT_FRAGMENTS,
  CITY,
  TOOL_CALL_ID,
  TOOL_NAME,
  replyCompletion,
  replyEvents,
  replyKind,
  requestProblems,
} from './model-script.mjs'
import { spreadText, summarize, tableText } from './report.mjs'

interface Chunk {
  choices: Array<{
    delta: {
      role?: string
      content?: string | null
      tool_calls?: Array<{ index: number; id?: string; function: { name?: string; arguments: string } }>
    }
    finish_reason: string | null
  }>
  usage?: { total_tokens: number }
}

/** The data of each SSE event, as a client reads them. */
function eventData(events: string[]): string[] {
  return events
    .join('')
    .split('\n\n')
    .filter((event) => event !== '')
    .map((event) => {
      expect(event.startsWith('data: ')).toBe(true)
      return event.slice('data: '.length)
    })
}

const chunksOf = (events: string[]) =>
  eventData(events)
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as Chunk)

const question = { role: 'user', content: 'What is the weather in Paris?' }
const tools = [{ type: 'function', function: WEATHER_TOOL }]
const toolCall = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: TOOL_CALL_ID, type: 'function', function: { name: TOOL_NAME, arguments: ARGUMENT_FRAGMENTS.join('') } },
  ],
}
const toolResult = { role: 'tool', tool_call_id: TOOL_CALL_ID, content: JSON.stringify(weather(CITY)) }

describe('the model script', () => {
  it('streams one tool call in fragments that join into its arguments, then finishes with tool_calls and usage', () => {
    const events = replyEvents('tool-call', 'bench-model')
    expect(eventData(events).at(-1)).toBe('[DONE]')
    const chunks = chunksOf(events)
    const calls = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])
    expect(calls.length).toBeGreaterThanOrEqual(2)
    expect(calls[0]).toMatchObject({ index: 0, id: TOOL_CALL_ID, function: { name: TOOL_NAME } })
    expect(calls.every((call) => call.index === 0)).toBe(true)
    expect(JSON.parse(calls.map((call) => call.function.arguments).join(''))).toEqual({ city: CITY })
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason ?? null).filter(Boolean)).toEqual(['tool_calls'])
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 54 } })
  })

  it('streams the answer in several chunks that join into ANSWER, then finishes with stop and usage', () => {
    const chunks = chunksOf(replyEvents('answer', 'bench-model'))
    const contents = chunks.flatMap((chunk) => chunk.choices[0]?.delta.content ?? [])
    expect(contents.length).toBeGreaterThan(2)
    expect(contents.join('')).toBe(ANSWER)
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant')
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason ?? null).filter(Boolean)).toEqual(['stop'])
    expect(chunks.at(-1)?.usage).toBeDefined()
  })

  it('answers a request without stream with the same reply as one completion', () => {
    expect(replyCompletion('tool-call').choices[0]).toMatchObject({
      message: { tool_calls: [{ id: TOOL_CALL_ID, function: { name: TOOL_NAME, arguments: '{"city": "Paris"}' } }] },
      finish_reason: 'tool_calls',
    })
    expect(replyCompletion('answer').choices[0]).toMatchObject({ message: { content: ANSWER }, finish_reason: 'stop' })
  })

  it('asks for the tool until the conversation holds a tool message', () => {
    expect(replyKind({ messages: [question] })).toBe('tool-call')
    expect(replyKind({ messages: [question, toolCall, toolResult] })).toBe('answer')
  })

  it('calls the tool every app defines', () => {
    expect(WEATHER_TOOL.name).toBe(TOOL_NAME)
    expect(JSON.stringify(weather(CITY))).toContain(CITY)
  })
})

describe('the request checks', () => {
  it('pass both requests of a tool round', () => {
    expect(requestProblems({ model: 'm', messages: [question], tools, stream: true })).toEqual([])
    expect(requestProblems({ model: 'm', messages: [question, toolCall, toolResult], tools })).toEqual([])
  })

  it('name a request without the tool', () => {
    expect(requestProblems({ messages: [question] })).toEqual([`${TOOL_NAME} is not among the tools ([])`])
  })

  it('name a second request whose tool call or result went astray', () => {
    const otherCall = { ...toolCall, tool_calls: [{ ...toolCall.tool_calls[0], id: 'call_other' }] }
    expect(requestProblems({ messages: [question, otherCall, toolResult], tools })).toEqual([
      `no assistant tool call ${TOOL_CALL_ID} to ${TOOL_NAME}`,
    ])
    const emptyResult = { ...toolResult, content: '{}' }
    expect(requestProblems({ messages: [question, toolCall, emptyResult], tools })).toEqual([
      'the tool result does not name Paris: "{}"',
    ])
  })

  it('name a body that is not a conversation', () => {
    expect(requestProblems(null)).toEqual(['the body is not a JSON object'])
    expect(requestProblems({ messages: [] })).toEqual(['no messages'])
  })
})

const at = (path: string, startTime: number, responseEnd: number) => ({
  name: `http://127.0.0.1:4000${path}`,
  startTime,
  responseEnd,
})

// Loaded at 10; the call at 1000; two chunks, the second imported by the first, and one beside them;
// the first model request at 1120; one more chunk during it; the second request at 1240.
const resources = [
  at('/assets/index.js', 10, 70),
  at('/assets/a.js', 1005, 1060),
  at('/assets/c.js', 1006, 1058),
  at('/assets/b.js', 1061, 1115),
  at('/v1/chat/completions', 1120, 1230),
  at('/assets/d.js', 1125, 1180),
  at('/v1/chat/completions', 1240, 1350),
]

describe('the columns', () => {
  it('count the JS requests, those between the call and the first model request, and those between the rounds', () => {
    expect(columnsOf(resources, { callAt: 1000, firstTextAt: 1300 })).toEqual({
      jsRequests: 5,
      dependentFetches: 3,
      dependentDepth: 2,
      callToFirstModelRequest: 120,
      jsBetweenRounds: 1,
      jsBetweenRoundsDepth: 1,
      gapBetweenModelRequests: 10,
      callToFirstText: 300,
    })
  })

  it('put the model requests in the order they started, whatever the order of the entries', () => {
    const columns = columnsOf([...resources].reverse(), { callAt: 1000, firstTextAt: 1300 })
    expect(columns.callToFirstModelRequest).toBe(120)
    expect(columns.gapBetweenModelRequests).toBe(10)
  })

  it('refuse a page that did not make exactly two model requests', () => {
    expect(() => columnsOf(resources.slice(0, 5), { callAt: 1000, firstTextAt: 1300 })).toThrow(
      'expected 2 model requests (one tool round), the page made 1',
    )
  })

  it('measure a chain by requests that each started once the one before had ended', () => {
    expect(longestChain([])).toBe(0)
    expect(longestChain([at('/x.js', 0, 50), at('/y.js', 1, 50)])).toBe(1)
    expect(longestChain([at('/x.js', 0, 50), at('/y.js', 50, 100), at('/z.js', 101, 150), at('/w.js', 60, 70)])).toBe(3)
  })
})

describe('the summary', () => {
  it('gives min, median and max of each column', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    const runs = [5, 1, 3].map((value) => ({
      jsRequests: 1,
      dependentFetches: 0,
      dependentDepth: 0,
      callToFirstModelRequest: value,
      jsBetweenRounds: 0,
      jsBetweenRoundsDepth: 0,
      gapBetweenModelRequests: value * 2,
      callToFirstText: value * 10,
    }))
    expect(spreadOf(runs).callToFirstText).toEqual({ min: 10, median: 30, max: 50 })
    expect(spreadOf(runs).jsRequests).toEqual({ min: 1, median: 1, max: 1 })
  })

  it('prints a spread as one value when it does not vary', () => {
    expect(spreadText({ min: 1, median: 1, max: 1 }, 0)).toBe('1')
    expect(spreadText({ min: 1.04, median: 2, max: 3.25 })).toBe('1.0 / 2.0 / 3.3')
  })

  it('has no ratio over a baseline of zero', () => {
    expect(ratio(10, 4)).toBe(2.5)
    expect(ratio(10, 0)).toBeNull()
  })

  it('puts the streamed advisor-chain app over the AI SDK and the hand-written loop, one table row per app', () => {
    const apps = [
      { name: 'hand', label: 'hand' },
      { name: 'ai-sdk', label: 'AI SDK' },
      { name: 'advisor-chain-stream', label: 'stream' },
      { name: 'advisor-chain-call', label: 'call', wholeAnswer: true },
    ]
    const runOf = (scale: number) => ({
      columns: {
        jsRequests: scale,
        dependentFetches: 0,
        dependentDepth: 0,
        callToFirstModelRequest: scale,
        jsBetweenRounds: 0,
        jsBetweenRoundsDepth: 0,
        gapBetweenModelRequests: 2 * scale,
        callToFirstText: 100 * scale,
      },
      timeline: [],
    })
    const runs = {
      hand: [runOf(1)],
      'ai-sdk': [runOf(2)],
      'advisor-chain-stream': [runOf(8)],
      'advisor-chain-call': [runOf(4)],
    }
    const summary = summarize(apps, runs, {
      hand: 1,
      'ai-sdk': 160,
      'advisor-chain-stream': 70,
      'advisor-chain-call': 60,
    })
    expect(summary.ratios).toEqual({
      'advisor-chain-stream / ai-sdk': { callToFirstModelRequest: 4, gapBetweenModelRequests: 4, callToFirstText: 4 },
      'advisor-chain-stream / hand': { callToFirstModelRequest: 8, gapBetweenModelRequests: 8, callToFirstText: 8 },
    })
    const lines = tableText(apps, summary).split('\n')
    expect(lines[0]).toMatch(/^app +JS KB gz +JS requests/)
    expect(lines.slice(1, 5).map((line) => line.split('  ')[0])).toEqual(['hand', 'AI SDK', 'stream', 'call *'])
    expect(lines).toContain(
      'advisor-chain-stream / ai-sdk (medians): call → 1st model request 4×, gap 4×, call → first token 4×',
    )
  })
})
