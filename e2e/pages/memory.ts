// A page for the memory e2e specs: a chat with the scripted model whose memory lives in IndexedDB,
// plus hooks the specs call to write from several tabs and to cut a save off by closing the page.
import {
  ChatClient,
  IndexedDBChatMemoryRepository,
  MessageChatMemoryAdvisor,
  MessageWindowChatMemory,
  ScriptedChatModel,
  userMessage,
  type Message,
} from '../../src'

const CONVERSATION = 'e2e'
const repository = new IndexedDBChatMemoryRepository({ databaseName: 'e2e-chat-memory' })
const chatMemory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(1000).build()
const model = new ScriptedChatModel((prompt) => `I remember ${prompt.messages.length - 1} earlier message(s).`)
const client = ChatClient.builder(model)
  .defaultAdvisors(MessageChatMemoryAdvisor.builder(chatMemory).conversationId(CONVERSATION).build())
  .build()

const form = document.querySelector<HTMLFormElement>('#chat')!
const transcript = document.querySelector<HTMLOListElement>('#transcript')!
const status = document.querySelector<HTMLParagraphElement>('#status')!

async function render(): Promise<void> {
  const messages = await chatMemory.get(CONVERSATION)
  transcript.replaceChildren(
    ...messages.map((message) => {
      const item = document.createElement('li')
      item.dataset.role = message.role
      item.textContent = message.role === 'tool' ? message.responses.map((r) => r.responseData).join(' ') : message.text
      return item
    }),
  )
  status.textContent = 'ready'
}

form.addEventListener('submit', (event) => {
  event.preventDefault()
  const input = form.elements.namedItem('text') as HTMLInputElement
  const text = input.value
  input.value = ''
  status.textContent = 'sending'
  void client
    .prompt(text)
    .call()
    .content()
    .then(render, (error: unknown) => (status.textContent = `failed: ${String(error)}`))
})

const hooks = {
  saveStarted: false,
  add: (conversationId: string, texts: string[]) => chatMemory.add(conversationId, texts.map(userMessage)),
  read: (conversationId: string): Promise<Message[]> => repository.findByConversationId(conversationId),
  /** Starts replacing a conversation with `count` long messages and returns at once. */
  startBigSave(conversationId: string, count: number): void {
    const big = Array.from({ length: count }, (_, i) => userMessage(`${i} ${'x'.repeat(1000)}`))
    void repository.update(conversationId, () => {
      hooks.saveStarted = true
      return big
    })
  },
}

declare global {
  interface Window {
    memoryPage: typeof hooks
  }
}
window.memoryPage = hooks

void render()
