// Streamed chunks per second through ChatClient.stream().content() with the auto-registered tool
// loop, against reading the same model stream directly, in the same run.
import { ChatClient, ObserverAdvisor, type ChatModel, type ChatResponse } from '../src'
import { median, report, round } from './measure'

const CHUNKS = 200_000

function chunk(text: string): ChatResponse {
  return { results: [{ output: { role: 'assistant', text, toolCalls: [] }, metadata: {} }], metadata: {} }
}

const prebuilt = Array.from({ length: CHUNKS }, (_, i) => chunk(i % 2 ? 'lo' : 'hel'))

/** A model that streams prebuilt chunks as fast as they are read. */
const streamingModel: ChatModel = {
  provider: 'bench',
  call: () => Promise.reject(new Error('not used')),
  stream: async function* () {
    yield* prebuilt
  },
}

async function direct(): Promise<number> {
  const start = performance.now()
  let count = 0
  for await (const response of streamingModel.stream({ messages: [], options: {} })) {
    if (response.results[0]!.output.text) count++
  }
  if (count !== CHUNKS) throw new Error(`read ${count} chunks`)
  return CHUNKS / ((performance.now() - start) / 1000)
}

const client = ChatClient.create(streamingModel)
// Default options (every chunk recorded; in a page, the performance track) and a sink that does nothing.
const observedClient = ChatClient.builder(streamingModel)
  .defaultAdvisors(new ObserverAdvisor({ sink: { emit: () => {} } }))
  .build()

// The same observer with chunk recording off: rounds, requests and responses only.
const roundsOnlyClient = ChatClient.builder(streamingModel)
  .defaultAdvisors(new ObserverAdvisor({ sink: { emit: () => {} }, chunks: false }))
  .build()

async function throughClient(through: ChatClient = client): Promise<number> {
  const start = performance.now()
  let count = 0
  for await (const delta of through.prompt('go').stream().content()) if (delta) count++
  if (count !== CHUNKS) throw new Error(`read ${count} chunks`)
  return CHUNKS / ((performance.now() - start) / 1000)
}

const directRates: number[] = []
const clientRates: number[] = []
const observedRates: number[] = []
const roundsOnlyRates: number[] = []
for (let run = 0; run < 9; run++) {
  directRates.push(await direct())
  clientRates.push(await throughClient())
  observedRates.push(await throughClient(observedClient))
  roundsOnlyRates.push(await throughClient(roundsOnlyClient))
}
const clientRate = median(clientRates)
const directRate = median(directRates)
report('stream-throughput', {
  what: 'text chunks per second read through client.prompt().stream().content() (tool loop registered) vs the model stream read directly',
  chunksPerSecond: Math.round(clientRate),
  directChunksPerSecond: Math.round(directRate),
  ratioToDirect: round(clientRate / directRate, 2),
  withObserverChunksPerSecond: Math.round(median(observedRates)),
  withObserverRatioToDirect: round(median(observedRates) / directRate, 2),
  withObserverChunksOffChunksPerSecond: Math.round(median(roundsOnlyRates)),
  observerNanosPerChunk: Math.round(1e9 / median(observedRates) - 1e9 / clientRate),
  observerChunksOffNanosPerChunk: Math.round(1e9 / median(roundsOnlyRates) - 1e9 / clientRate),
})
