// An app written against the installed package only: a tool round with a scripted model, the
// conversation through useChat, the devtools panel, and the WebLLM worker built by Vite.
import { ChatClient, ObserverAdvisor, ScriptedChatModel, defineTool } from 'advisor-chain'
import { AdvisorDevtools, createDevtoolsStore } from 'advisor-chain/devtools'
import { useChat } from 'advisor-chain/react'
import { useState } from 'react'

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  } as const,
  execute: ({ a, b }) => ({ sum: a + b }),
})

// Each question: first the tool call, then an answer built from the tool's response.
const model = new ScriptedChatModel((prompt) => {
  const last = prompt.messages.at(-1)
  if (last?.role !== 'tool') return { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] }
  const { sum } = JSON.parse(last.responses[0]?.responseData ?? '{}') as { sum?: number }
  return `The sum is ${sum}.`
})

const store = createDevtoolsStore()
const client = ChatClient.builder(model)
  .defaultTools(add)
  .defaultAdvisors(new ObserverAdvisor({ sink: store }))
  .build()

export function App() {
  const chat = useChat(client)
  const [worker, setWorker] = useState('not started')
  const startWorker = () => {
    // The line the README gives: Vite builds the package's worker entry with this app's WebLLM.
    const webllm = new Worker(new URL('advisor-chain/webllm/worker', import.meta.url), { type: 'module' })
    webllm.onerror = (event) => setWorker(`failed: ${event.message}`)
    setWorker('started')
  }
  return (
    <main>
      <button onClick={() => void chat.send('What is 2 + 3?')}>Ask</button>
      <button onClick={startWorker}>Start the WebLLM worker</button>
      <output data-testid="worker">{worker}</output>
      <ol>
        {chat.messages.map((message) => (
          <li key={message.id} data-testid={`message-${message.role}`}>
            {message.toolCalls.map((call) => `${call.name}(${call.arguments}) `)}
            {message.text}
          </li>
        ))}
      </ol>
      {/* ?default: the devtools as a production build leaves them when `enabled` is not given. */}
      {new URLSearchParams(location.search).has('default') ? (
        <AdvisorDevtools store={store} />
      ) : (
        <AdvisorDevtools store={store} enabled />
      )}
    </main>
  )
}
