// Per-call overhead of a 5-advisor chain around a model, against calling the same model directly.
import { ChatClient, type CallAdvisor, type ChatModel, type ChatResponse, type Prompt } from '../src'
import { measure, report, round } from './measure'

const answer: ChatResponse = {
  results: [{ output: { role: 'assistant', text: 'ok', toolCalls: [] }, metadata: { finishReason: 'stop' } }],
  metadata: {},
}

// A model that answers at once, so the figures are the framework's own cost.
const instantModel: ChatModel = {
  provider: 'bench',
  call: async () => answer,
  // eslint-disable-next-line require-yield
  stream: async function* () {
    throw new Error('not used')
  },
}

const passThrough = (index: number): CallAdvisor => ({
  name: `advisor-${index}`,
  order: index * 100,
  adviseCall: (request, chain) => chain.nextCall(request),
})

const client = ChatClient.builder(instantModel)
  .defaultAdvisors(...[1, 2, 3, 4, 5].map(passThrough))
  .build()
const prompt: Prompt = { messages: [{ role: 'user', text: 'hi' }], options: {} }

const iterations = 50_000
const direct = await measure(() => instantModel.call(prompt), iterations)
const chained = await measure(() => client.prompt('hi').call().chatResponse(), iterations)

report('chain-overhead', {
  what: 'one call through ChatClient with 5 pass-through advisors vs model.call() directly',
  directMicros: round(direct),
  chainMicros: round(chained),
  overheadMicros: round(chained - direct),
  ratio: round(chained / direct, 1),
})
