// EscalationAdvisor: what a round that stays on the device pays for the advisor, a local model that
// fails 20% of its rounds in every way the advisor knows, and how soon the fallback's first token
// comes after a failure — each against a baseline measured in this run.
import {
  ChatClient,
  ChatModelError,
  EscalationAdvisor,
  ObserverAdvisor,
  TraceCollector,
  defineTool,
  type ChatModel,
  type ChatResponse,
  type Prompt,
} from '../src'
import { measure, median, report, round } from './measure'

const chunk = (text: string, last: boolean, model: string): ChatResponse => ({
  results: [{ output: { role: 'assistant', text, toolCalls: [] }, metadata: last ? { finishReason: 'stop' } : {} }],
  metadata: last ? { model, usage: { promptTokens: 20, completionTokens: 40, totalTokens: 60 } } : { model },
})

const WORDS = Array.from({ length: 40 }, (_, index) => `word${index} `)

/** A model that answers at once: 40 chunks on a stream, one response on a call. */
function instantModel(model: string): ChatModel {
  const whole = chunk(WORDS.join(''), true, model)
  const chunks = WORDS.map((word, index) => chunk(word, index === WORDS.length - 1, model))
  return {
    provider: 'bench',
    call: () => Promise.resolve(whole),
    stream: async function* () {
      yield* chunks
    },
  }
}

// 1. A round that does not escalate, with and without the advisor (observer and tool loop in both).
const local = instantModel('local')
const remote = instantModel('remote')
const sink = { emit: () => {} }
const plain = ChatClient.builder(local)
  .defaultAdvisors(new ObserverAdvisor({ sink, performanceTrack: false }))
  .build()
const escalating = ChatClient.builder(local)
  .defaultAdvisors(new ObserverAdvisor({ sink, performanceTrack: false }), EscalationAdvisor.builder(remote).build())
  .build()
const drain = async (stream: AsyncIterable<unknown>) => {
  for await (const _ of stream);
}
const iterations = 4_000
const plainCall: number[] = []
const escalatingCall: number[] = []
const plainStream: number[] = []
const escalatingStream: number[] = []
// Interleaved, and each side first in turn, so neither has the warmer machine.
const sides = [
  async () => plainCall.push(await measure(() => plain.prompt('hi').call().chatResponse(), iterations, 1)),
  async () => escalatingCall.push(await measure(() => escalating.prompt('hi').call().chatResponse(), iterations, 1)),
  async () =>
    plainStream.push(await measure(() => drain(plain.prompt('hi').stream().chatResponse()), iterations / 4, 1)),
  async () =>
    escalatingStream.push(
      await measure(() => drain(escalating.prompt('hi').stream().chatResponse()), iterations / 4, 1),
    ),
]
for (let sample = 0; sample < 8; sample++) {
  const order = sample % 2 === 0 ? [0, 1, 2, 3] : [1, 0, 3, 2]
  for (const side of order) await sides[side]!()
}

// 2. A local model that fails one round in five, in turn each way; every turn must end as the all-remote run does.
const FAILURES = ['unavailable', 'context-full', 'invalid-output', 'error', 'rejected', 'slow'] as const
const weather = defineTool({
  name: 'weather',
  description: 'weather of a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  execute: () => Promise.resolve('sunny'),
})
const turnReply = (prompt: Prompt): ChatResponse => {
  const toolDone = prompt.messages.at(-1)?.role === 'tool'
  const output = toolDone
    ? { role: 'assistant' as const, text: 'It is sunny.', toolCalls: [] }
    : {
        role: 'assistant' as const,
        text: '',
        toolCalls: [{ id: `call_${prompt.messages.length}`, name: 'weather', arguments: '{"city":"Lisbon"}' }],
      }
  return { results: [{ output, metadata: { finishReason: toolDone ? 'stop' : 'tool_calls' } }], metadata: {} }
}
let localRound = 0
let localAnswered = 0
const failingLocal: ChatModel = {
  provider: 'webllm',
  call: async (prompt, signal) => {
    const failure = localRound++ % 5 === 4 ? FAILURES[Math.floor(localRound / 5) % FAILURES.length] : undefined
    switch (failure) {
      case 'unavailable':
        throw new ChatModelError('no WebGPU', { provider: 'webllm', code: 'WebGPUNotAvailableError', retryable: false })
      case 'context-full':
        throw new ChatModelError('context full', { provider: 'webllm', code: 'context-full', retryable: false })
      case 'error':
        throw new ChatModelError('GPU busy', { provider: 'webllm', retryable: true })
      case 'invalid-output': {
        const reply = turnReply(prompt)
        const call = reply.results[0]!.output.toolCalls[0]
        if (call) call.arguments = '{"city": "Lis'
        else reply.results[0]!.output.text = 'REFUSED'
        return reply
      }
      case 'rejected': {
        const reply = turnReply(prompt)
        reply.results[0]!.output.text = 'REFUSED'
        return reply
      }
      case 'slow':
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 1_000)
          signal?.addEventListener(
            'abort',
            () => (clearTimeout(timer), reject(new DOMException('aborted', 'AbortError'))),
          )
        })
    }
    localAnswered++
    return turnReply(prompt)
  },
  stream: () => {
    throw new Error('not used')
  },
}
const remoteTurns: ChatModel = {
  provider: 'openai',
  call: (prompt) => Promise.resolve(turnReply(prompt)),
  stream: () => {
    throw new Error('not used')
  },
}
const rejects = (_: unknown, response: { chatResponse: ChatResponse | null }) =>
  response.chatResponse?.results[0]?.output.text === 'REFUSED'
const mixed = ChatClient.builder(failingLocal)
  .defaultTools(weather)
  .defaultAdvisors(EscalationAdvisor.builder(remoteTurns).firstTokenTimeoutMs(2).when(rejects).build())
  .build()
const allRemote = ChatClient.builder(remoteTurns).defaultTools(weather).build()
const turns = 100
let sameEnd = 0
for (let turn = 0; turn < turns; turn++) {
  const [got, expected] = await Promise.all([
    mixed.prompt('weather?').call().content(),
    allRemote.prompt('weather?').call().content(),
  ])
  if (got === expected) sameEnd++
}

// 3. The fallback's first token after the local model fails at once, against the fallback streamed directly.
const firstTokenMs = 5
const slowStart: ChatModel = {
  provider: 'openai',
  call: () => Promise.reject(new Error('not used')),
  stream: async function* () {
    await new Promise((resolve) => setTimeout(resolve, firstTokenMs))
    yield chunk('first', true, 'remote')
  },
}
const brokenLocal: ChatModel = {
  provider: 'webllm',
  call: () => Promise.reject(new Error('not used')),
  // eslint-disable-next-line require-yield
  stream: async function* () {
    throw new ChatModelError('no WebGPU', { provider: 'webllm', code: 'WebGPUNotAvailableError', retryable: false })
  },
}
const direct = ChatClient.builder(slowStart)
  .defaultAdvisors(new ObserverAdvisor({ sink: new TraceCollector(), performanceTrack: false }))
  .build()
const fallingBack = ChatClient.builder(brokenLocal)
  .defaultAdvisors(
    new ObserverAdvisor({ sink: new TraceCollector(), performanceTrack: false }),
    EscalationAdvisor.builder(slowStart).build(),
  )
  .build()
const firstChunk = async (client: ChatClient) => {
  const started = performance.now()
  const reader = client.prompt('hi').stream().content()[Symbol.asyncIterator]()
  await reader.next()
  const ms = performance.now() - started
  await reader.return?.()
  return ms
}
const directFirst: number[] = []
const fallbackFirst: number[] = []
for (let sample = 0; sample < 40; sample++) {
  directFirst.push(await firstChunk(direct))
  fallbackFirst.push(await firstChunk(fallingBack))
}

report('escalation', {
  what: 'EscalationAdvisor: a round kept on the device vs the same round without the advisor; a local model failing 20% of rounds; the fallback first token after a failure',
  keptCallMicros: round(median(escalatingCall)),
  withoutAdvisorCallMicros: round(median(plainCall)),
  keptCallRatio: round(median(escalatingCall) / median(plainCall), 3),
  keptStreamMicros: round(median(escalatingStream)),
  withoutAdvisorStreamMicros: round(median(plainStream)),
  keptStreamRatio: round(median(escalatingStream) / median(plainStream), 3),
  failingTurns: turns,
  turnsEndingAsAllRemote: sameEnd,
  localRounds: localRound,
  roundsAnsweredLocally: round(localAnswered / localRound, 3),
  fallbackFirstTokenMs: round(median(fallbackFirst)),
  fallbackOwnFirstTokenMs: round(median(directFirst)),
  fallbackOverheadMs: round(median(fallbackFirst) - median(directFirst)),
})
