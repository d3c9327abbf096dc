'use client'
// The page's whole chat: the chain runs here, in the browser; the key stays in the route.
import {
  ChatClient,
  IndexedDBChatMemoryRepository,
  MessageChatMemoryAdvisor,
  MessageWindowChatMemory,
  ObserverAdvisor,
  OpenAIChatModel,
  defineTool,
} from 'advisor-chain'
import { AdvisorDevtools, createDevtoolsStore } from 'advisor-chain/devtools'
import { useChat } from 'advisor-chain/react'
import { useState } from 'react'

const store = createDevtoolsStore()
const memory = MessageWindowChatMemory.builder()
  .chatMemoryRepository(new IndexedDBChatMemoryRepository({ databaseName: 'consumer-next' }))
  .build()

const weather = defineTool({
  name: 'get_weather',
  description: 'The weather in a city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  } as const,
  // Asked about before it runs: the chat adds what asks and shows the card's Approve button.
  needsApproval: true,
  execute: ({ city }) => ({ city, forecast: 'sunny', celsius: 21 }),
})

const client = ChatClient.builder(new OpenAIChatModel({ baseURL: '/api/openai', model: 'mock-model' }))
  .defaultTools(weather)
  .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build(), new ObserverAdvisor({ sink: store }))
  .build()

export function Chat({ conversationId }: { conversationId: string }) {
  // Memory and approvals come from the client: its memory advisor, and the tool that needsApproval.
  const chat = useChat(client, { conversationId })
  const [text, setText] = useState('What is the weather in Paris?')
  return (
    <section>
      <ol>
        {chat.messages.map((message) => (
          <li key={message.id} data-testid={`message-${message.role}`}>
            {message.parts.map((part, index) =>
              part.type === 'tool-call' ? (
                <span key={index} data-testid="tool-card" data-state={part.state}>
                  {part.name}({part.arguments}) {part.result}
                  {part.state === 'awaiting-approval' && (
                    <button onClick={() => chat.addToolApproval({ id: part.id, approved: true })}>Approve</button>
                  )}
                </span>
              ) : part.type === 'text' ? (
                <span key={index}>{part.text}</span>
              ) : null,
            )}
          </li>
        ))}
      </ol>
      <p data-testid="status">{chat.status}</p>
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void chat.send(text)
        }}
      >
        <input value={text} onChange={(event) => setText(event.target.value)} aria-label="Message" />
        <button type="submit">Send</button>
      </form>
      <AdvisorDevtools store={store} enabled />
    </section>
  )
}
