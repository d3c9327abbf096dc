// The chain also runs on the server: a route handler with a tool and an observer.
import { ChatClient, ObserverAdvisor, ScriptedChatModel, defineTool, type TraceEvent } from 'advisor-chain'

export async function GET(): Promise<Response> {
  const events: TraceEvent[] = []
  const add = defineTool({
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    } as const,
    execute: ({ a, b }) => a + b,
  })
  const model = new ScriptedChatModel([
    { toolCalls: [{ id: 'c1', name: 'add', arguments: { a: 2, b: 3 } }] },
    'The sum is 5.',
  ])
  const client = ChatClient.builder(model)
    .defaultTools(add)
    .defaultAdvisors(new ObserverAdvisor({ sink: { emit: (event) => void events.push(event) } }))
    .build()
  const answer = await client.prompt('What is 2 + 3?').call().content()
  return Response.json({ answer, events: events.length })
}
