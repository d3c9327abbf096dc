// A client whose model asks for `tick` a given number of rounds, then answers: the long tool loop
// the memory and garbage-collector benches run. Model and tool answer at once and keep nothing.
import {
  ChatClient,
  ObserverAdvisor,
  ToolCallingAdvisor,
  ToolCallingManager,
  defineTool,
  type ChatModel,
  type ChatResponse,
  type Message,
  type ToolCall,
} from '../src'

/** A model response asking for `tick` once. */
export const toolCall = (round: number): ChatResponse => ({
  results: [
    {
      output: {
        role: 'assistant',
        text: '',
        toolCalls: [{ id: `c${round}`, name: 'tick', arguments: `{"n":${round}}` }],
      },
      metadata: { finishReason: 'tool_calls' },
    },
  ],
  metadata: {},
})
/** The final answer. */
export const answer: ChatResponse = {
  results: [{ output: { role: 'assistant', text: 'done', toolCalls: [] }, metadata: { finishReason: 'stop' } }],
  metadata: {},
}

/** A tool that answers at once and keeps nothing. */
export const tick = defineTool({
  name: 'tick',
  description: 'Counts',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
  execute: ({ n }) => n,
})

/** Runs `rounds` tool rounds per call, observed by an ObserverAdvisor at its default options into a no-op sink. */
export function loopingClient(rounds: number) {
  let calls = 0
  const model: ChatModel = {
    provider: 'bench',
    call: async () => (++calls % (rounds + 1) === 0 ? answer : toolCall(calls)),
    // eslint-disable-next-line require-yield
    stream: async function* () {
      throw new Error('not used')
    },
  }
  const manager = ToolCallingManager.builder()
    .limits({ perTool: 10 * rounds, total: 10 * rounds })
    .build()
  const client = ChatClient.builder(model)
    .defaultTools(tick)
    .defaultAdvisors(new ObserverAdvisor({ sink: { emit: () => {} } }))
    .toolCallingAdvisor(
      ToolCallingAdvisor.builder()
        .maxIterations(rounds + 1)
        .toolCallingManager(manager),
    )
    .build()
  return () => client.prompt('count').call().chatResponse()
}

/** The same conversation with no framework: call the model, run the tool, append, repeat. */
export function handWrittenLoop(rounds: number) {
  let calls = 0
  const call = async () => (++calls % (rounds + 1) === 0 ? answer : toolCall(calls))
  return async () => {
    const messages: Message[] = [{ role: 'user', text: 'count' }]
    for (;;) {
      const output = (await call()).results[0]!.output
      if (output.toolCalls.length === 0) return output
      messages.push(output)
      const responses = await Promise.all(
        output.toolCalls.map(async (toolCall: ToolCall) => ({
          id: toolCall.id,
          name: toolCall.name,
          responseData: await tick.call(toolCall.arguments, { values: {}, advisorContext: {}, toolCall }),
        })),
      )
      messages.push({ role: 'tool', responses })
    }
  }
}
