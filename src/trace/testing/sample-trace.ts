import type { Message } from '../../core'
import { TRACE_VERSION, type TraceEvent, type TraceEventBody, type TraceEventType } from '../events'

// Hand-written trace events for tests: one valid event of every type, and whole runs shaped like
// the ones an ObserverAdvisor inside the tool loop records.

type Body<T extends TraceEventType> = Extract<TraceEventBody, { type: T }>

const call = { id: 'call_1', name: 'local_time', arguments: '{"zone":"UTC"}' }
const localTime = { name: 'local_time', description: 'The local time', inputSchema: { type: 'object' } }

const mcpSource = { kind: 'mcp', name: 'clock-server 1.0.0', url: 'http://127.0.0.1:3001/mcp' }

/** One valid body of every event type. */
export const SAMPLE_BODIES: { [T in TraceEventType]: Body<T> } = {
  'run-start': {
    type: 'run-start',
    mode: 'stream',
    startedAt: 1_790_000_000_000,
    observer: 'inside-loop',
    chain: [{ name: 'Tool Calling Advisor', order: -2147483348, placement: 'tool-loop' }],
  },
  'run-end': { type: 'run-end', status: 'ok', durationMs: 12, rounds: 2 },
  'round-start': { type: 'round-start' },
  'round-end': { type: 'round-end', status: 'ok', durationMs: 5 },
  'model-request': {
    type: 'model-request',
    provider: 'scripted',
    messages: [{ role: 'user', text: 'What time is it?' }],
    options: { model: 'm', temperature: 0.2, toolChoice: 'auto', tools: [localTime] },
  },
  'model-chunk': { type: 'model-chunk', index: 0, text: 'It' },
  'model-response': { type: 'model-response', text: 'It is noon.', toolCalls: [], durationMs: 4 },
  'tool-start': { type: 'tool-start', toolCall: call, source: mcpSource },
  'tool-end': {
    type: 'tool-end',
    toolCall: call,
    result: '12:00',
    durationMs: 3,
    returnDirect: false,
    source: mcpSource,
    detail: { request: { method: 'tools/call', params: { name: 'now', arguments: {} } } },
  },
  'tool-loop-end': { type: 'tool-loop-end', reason: 'answer', rounds: 2 },
  validation: { type: 'validation', attempt: 1, valid: false, errors: ['/city must be string'] },
  retry: { type: 'retry', attempt: 1, error: { name: 'ChatModelError', message: '503' }, delayMs: 400 },
  evaluation: { type: 'evaluation', attempt: 1, score: 0.8, passed: true },
  approval: { type: 'approval', phase: 'requested', toolCall: call },
  error: { type: 'error', error: { name: 'Error', message: 'boom' }, aborted: false },
  note: { type: 'note', message: 'hello' },
  escalation: {
    type: 'escalation',
    from: 'Qwen2.5-0.5B-Instruct',
    to: 'gpt-4o-mini',
    reason: 'invalid-output',
    detail: "the arguments of tool call 'local_time' are not JSON",
    restarted: true,
  },
  compaction: {
    type: 'compaction',
    sessionId: 'session-1',
    trigger: 'context-window',
    strategy: 'recursive-summarization',
    covered: 2,
    preserved: 2,
    left: ['user: When does the shop open?', 'assistant: At nine.'],
    summary: 'The user asked when the shop opens: at nine.',
    tokensSaved: 12,
    tokensBefore: 40,
    tokensAfter: 28,
  },
  retrieval: {
    type: 'retrieval',
    query: 'When does the shop open?',
    documents: [{ id: 'hours.md#0', score: 0.82, text: 'Open 9 to 5 on weekdays.', metadata: { source: 'hours.md' } }],
    topK: 4,
    minScore: 0,
    durationMs: 3.5,
  },
}

/** A valid event of `type` with a header. */
export function sampleEvent<T extends TraceEventType>(type: T, header: Partial<TraceEvent> = {}): TraceEvent {
  return {
    v: TRACE_VERSION,
    seq: 0,
    runId: 'run-1',
    round: 1,
    advisor: 'Observer Advisor',
    t: 100,
    ...SAMPLE_BODIES[type],
    ...header,
  } as TraceEvent
}

export interface SampleRunOptions {
  runId?: string
  question?: string
  /** Monotonic start time of the run. */
  t0?: number
  /** Wall-clock start. */
  startedAt?: number
  /** First `seq` of the run. */
  seq?: number
  /** Tool rounds before the answer (default 1). */
  toolRounds?: number
  /** Parallel tool calls per tool round (default 1). */
  parallel?: number
  /** Stream chunks of the final answer (default 3). */
  chunks?: number
  /** Make the first tool call of round 1 fail. */
  toolError?: boolean
  /** What every tool answers (default a small JSON object). */
  toolResult?: string
  /** The final answer. */
  answer?: string
  /** Leave the run unfinished after this many events. */
  stopAfter?: number
}

/**
 * The events of one run of the tool loop as an observer inside the loop records them: the model
 * asks for `local_time` in each tool round (model 60 ms, tools 120 ms), then answers in chunks.
 * Later requests share the earlier messages (`shared`), as the recorder's delta encoding does.
 */
export function sampleRun(options: SampleRunOptions = {}): TraceEvent[] {
  const runId = options.runId ?? 'run-1'
  const question = options.question ?? 'What time is it?'
  const toolRounds = options.toolRounds ?? 1
  const parallel = options.parallel ?? 1
  const chunkCount = options.chunks ?? 3
  const answer = options.answer ?? 'It is 12:00 in UTC.'
  const toolResult = options.toolResult ?? JSON.stringify({ time: '12:00', zone: 'UTC' })
  let t = options.t0 ?? 1000
  let seq = options.seq ?? 0
  const events: TraceEvent[] = []
  const emit = (round: number, body: TraceEventBody, advisor = 'Observer Advisor') =>
    events.push({ ...body, v: TRACE_VERSION, seq: seq++, runId, round, advisor, t })
  const requestOptions = { model: 'scripted', tools: [localTime] }
  emit(0, {
    type: 'run-start',
    mode: 'stream',
    startedAt: options.startedAt ?? 1_790_000_000_000,
    observer: 'inside-loop',
    chain: [
      { name: 'Tool Calling Advisor', order: -2147483348, placement: 'tool-loop' },
      { name: 'Observer Advisor', order: -2147483248, placement: 'inside-loop' },
    ],
  })
  let sent = 0
  const history: Message[] = [
    { role: 'system', text: 'You are brief.' },
    { role: 'user', text: question },
  ]
  for (let round = 1; round <= toolRounds + 1; round++) {
    const roundStart = t
    emit(round, { type: 'round-start' })
    emit(round, {
      type: 'model-request',
      messages: history.slice(sent),
      ...(sent > 0 ? { shared: sent } : {}),
      options: requestOptions,
    })
    sent = history.length
    const usage = { promptTokens: 20 * round, completionTokens: 5, totalTokens: 20 * round + 5 }
    if (round <= toolRounds) {
      const calls = Array.from({ length: parallel }, (_, index) => ({
        id: `${runId}-call-${round}-${index}`,
        name: 'local_time',
        arguments: JSON.stringify({ zone: index === 0 ? 'UTC' : `Zone/${index}` }),
      }))
      t += 20
      emit(round, { type: 'model-chunk', index: 0, text: '', toolCalls: calls })
      t += 40
      emit(round, {
        type: 'model-response',
        text: '',
        toolCalls: calls,
        finishReason: 'tool_calls',
        usage,
        model: 'scripted',
        durationMs: 60,
        timeToFirstTokenMs: 20,
        chunks: 1,
      })
      emit(round, { type: 'round-end', status: 'ok', durationMs: t - roundStart })
      const toolsStart = t
      for (const toolCall of calls) emit(round, { type: 'tool-start', toolCall }, 'Tool Calling Advisor')
      calls.forEach((toolCall, index) => {
        t = toolsStart + 120 + index * 10
        const failed = options.toolError && round === 1 && index === 0
        const result = failed ? 'Error: the clock is broken' : toolResult
        emit(
          round,
          {
            type: 'tool-end',
            toolCall,
            result,
            ...(failed ? { error: result } : {}),
            durationMs: t - toolsStart,
            returnDirect: false,
          },
          'Tool Calling Advisor',
        )
      })
      history.push({ role: 'assistant', text: '', toolCalls: calls })
      history.push({
        role: 'tool',
        responses: calls.map((toolCall) => ({
          id: toolCall.id,
          name: toolCall.name,
          responseData: toolResult,
        })),
      })
    } else {
      const words = answer.match(/\S+\s*/g) ?? [answer]
      const size = Math.ceil(words.length / Math.max(chunkCount, 1))
      t += 30
      for (let index = 0; index < chunkCount; index++) {
        emit(round, { type: 'model-chunk', index, text: words.slice(index * size, (index + 1) * size).join('') })
        t += 15
      }
      emit(round, {
        type: 'model-response',
        text: answer,
        toolCalls: [],
        finishReason: 'stop',
        usage,
        model: 'scripted',
        durationMs: t - roundStart,
        timeToFirstTokenMs: 30,
        tokensPerSecond: 5 / ((t - roundStart - 30) / 1000),
        chunks: chunkCount,
      })
      emit(round, { type: 'round-end', status: 'ok', durationMs: t - roundStart })
    }
  }
  const rounds = toolRounds + 1
  emit(0, { type: 'tool-loop-end', reason: 'answer', rounds }, 'Tool Calling Advisor')
  const promptTokens = Array.from({ length: rounds }, (_, index) => 20 * (index + 1)).reduce((a, b) => a + b, 0)
  emit(0, {
    type: 'run-end',
    status: 'ok',
    durationMs: t - (options.t0 ?? 1000),
    rounds,
    usage: { promptTokens, completionTokens: 5 * rounds, totalTokens: promptTokens + 5 * rounds },
    finishReason: 'stop',
  })
  return options.stopAfter === undefined ? events : events.slice(0, options.stopAfter)
}
