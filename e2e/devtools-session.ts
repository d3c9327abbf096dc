import {
  ChatClient,
  ObserverAdvisor,
  ScriptedChatModel,
  ToolCallingAdvisor,
  ToolCallingManager,
  TraceCollector,
  defineTool,
  exportTrace,
} from 'advisor-chain'

/**
 * A real trace file of about `events` events, recorded in Node by an ObserverAdvisor inside the
 * tool loop: one long run (`longRounds` rounds) and short runs of ten rounds, every model answer
 * streamed in twenty chunks.
 */
export async function recordLargeSession({ events = 10_000, longRounds = 200 } = {}): Promise<string> {
  const collector = new TraceCollector()
  const lookup = defineTool({
    name: 'lookup',
    description: 'Looks a word up',
    inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    execute: ({ word }) => ({ word, definition: `the meaning of ${word}` }),
  })
  const words = Array.from({ length: 20 }, (_, index) => `word${index} `)
  const run = async (rounds: number, question: string) => {
    let turn = 0
    const model = new ScriptedChatModel(() =>
      ++turn < rounds
        ? { chunks: words, toolCalls: [{ name: 'lookup', arguments: { word: `w${turn}` } }] }
        : { chunks: words },
    )
    const client = ChatClient.builder(model)
      .defaultTools(lookup)
      .defaultAdvisors(
        ToolCallingAdvisor.builder()
          .toolCallingManager(ToolCallingManager.builder().limits({ perTool: 1_000, total: 1_000 }).build())
          .maxIterations(rounds + 1)
          .build(),
        new ObserverAdvisor({ sink: collector, performanceTrack: false }),
      )
      .build()
    for await (const _ of client.prompt(question).stream().content()) void _
  }
  await run(longRounds, 'A long investigation')
  for (let index = 0; collector.events.length < events; index++) await run(10, `Question ${index + 1}`)
  return exportTrace(collector.events)
}
