// A page for the memory e2e specs that run whole turns: a scripted model that asks for one tool
// round per turn, memory in IndexedDB inside or outside the loop, and hooks the specs call to run
// turns from several tabs, hold a tool, count the saves of a turn and read what is stored.
import {
  ChatClient,
  HIGHEST_PRECEDENCE,
  IndexedDBChatMemoryRepository,
  MessageChatMemoryAdvisor,
  MessageWindowChatMemory,
  ObserverAdvisor,
  ScriptedChatModel,
  TraceCollector,
  defineTool,
  type ChatMemory,
  type CorruptRecord,
  type Message,
} from '../../src'

type Placement = 'inside' | 'outside'

const DATABASE = 'e2e-memory-turns'
const problems: CorruptRecord[] = []
const repository = new IndexedDBChatMemoryRepository({
  databaseName: DATABASE,
  onCorruptRecord: (problem) => problems.push(problem),
})
const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).maxMessages(5000).build()
const collector = new TraceCollector()

/** The memory as the advisor sees it, counting the saves (adds and updates) of turns. */
let saves = 0
const countedMemory: ChatMemory = {
  get: (id) => memory.get(id),
  add: (id, messages) => (saves++, memory.add(id, messages)),
  clear: (id) => memory.clear(id),
  update: (id, change) => (saves++, memory.update(id, change)),
  sharedStorageName: memory.sharedStorageName,
}

let releaseTool: (() => void) | undefined
let toolStarted = false
const lookup = defineTool({
  name: 'lookup',
  description: 'Looks the question up',
  inputSchema: { type: 'object', properties: { question: { type: 'string' }, size: { type: 'number' } } },
  execute: async ({ question, size }) => {
    toolStarted = true
    if (hooks.holdTool) await new Promise<void>((resolve) => (releaseTool = resolve))
    else await new Promise((resolve) => setTimeout(resolve, 2))
    return `found ${String(question)}${size ? `|${noise(Number(size))}` : ''}`
  },
})

/** Text that does not compress, so that its size on disk is its length: the quota specs need that. */
function noise(length: number): string {
  let seed = length
  let text = ''
  while (text.length < length) text += ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31).toString(36).slice(2)
  return text.slice(0, length)
}

/** Sizes (in characters) of the messages of the next turn: the user's, the tool call's, the tool's, the answer. */
interface TurnSizes {
  user?: number
  call?: number
  result?: number
  answer?: number
}

function clientFor(placement: Placement, sizes: TurnSizes = {}): ChatClient {
  const model = new ScriptedChatModel((prompt) => {
    const last = prompt.messages.at(-1)!
    if (last.role === 'user') {
      const question = last.text.split(' ')[0]!
      return {
        toolCalls: [
          {
            id: `call-${question}`,
            name: 'lookup',
            arguments: { question, size: sizes.result ?? 0, ...(sizes.call ? { pad: noise(sizes.call) } : {}) },
          },
        ],
      }
    }
    const answered = last.role === 'tool' ? last.responses[0]!.responseData.slice(6).split('|')[0] : '?'
    return `Answer ${answered}${sizes.answer ? ` ${noise(sizes.answer)}` : ''}`
  })
  return ChatClient.builder(model)
    .defaultTools(lookup)
    .defaultAdvisors(
      MessageChatMemoryAdvisor.builder(countedMemory)
        .order(placement === 'inside' ? HIGHEST_PRECEDENCE + 350 : MessageChatMemoryAdvisor.DEFAULT_ORDER)
        .build(),
      new ObserverAdvisor({ sink: collector }),
    )
    .build()
}

/** What a turn ended with: its answer, or its error's name, code and message. */
type Outcome = { answer: string } | { error: string; code?: string; message: string; conversationId?: string }

async function turn(conversationId: string, text: string, placement: Placement, sizes?: TurnSizes): Promise<Outcome> {
  try {
    const answer = await clientFor(placement, sizes)
      .prompt(sizes?.user ? `${text} ${noise(sizes.user)}` : text)
      .advisorParams({ chat_memory_conversation_id: conversationId })
      .call()
      .content()
    return { answer: answer ?? '' }
  } catch (error) {
    const { name, message, code, conversationId: id } = error as Error & { code?: string; conversationId?: string }
    return { error: name, message, ...(code ? { code } : {}), ...(id ? { conversationId: id } : {}) }
  }
}

const hooks = {
  holdTool: false,
  get toolStarted() {
    return toolStarted
  },
  get saves() {
    return saves
  },
  releaseTool: () => releaseTool?.(),
  /** Runs `count` turns at once on one conversation; resolves with each one's outcome. */
  turns: (conversationId: string, prefix: string, count: number, placement: Placement) =>
    Promise.all(Array.from({ length: count }, (_, i) => turn(conversationId, `${prefix}${i}`, placement))),
  turn,
  /** Starts a turn and returns at once (the spec closes the page during it). */
  startTurn(conversationId: string, text: string, placement: Placement): void {
    void turn(conversationId, text, placement)
  },
  add: (conversationId: string, messages: Message[]) => memory.add(conversationId, messages),
  read: (conversationId: string): Promise<Message[]> => repository.findByConversationId(conversationId),
  window: (conversationId: string): Promise<Message[]> => memory.get(conversationId),
  warnings: () =>
    collector
      .ofType('note')
      .filter((note) => note.level === 'warning')
      .map((note) => note.message),
  problems: () => problems,
  /** The names of the Web Locks this origin holds and waits for. */
  async locks(): Promise<{ held: string[]; pending: string[] }> {
    const state = await navigator.locks.query()
    return {
      held: (state.held ?? []).map((lock) => lock.name ?? ''),
      pending: (state.pending ?? []).map((lock) => lock.name ?? ''),
    }
  },
  /** Replaces a stored record by hand (a record damaged on disk). */
  damage(conversationId: string, seq: number, message: unknown): Promise<void> {
    return new Promise((resolve, reject) => {
      const open = indexedDB.open(DATABASE)
      open.onerror = () => reject(open.error ?? new Error('open failed'))
      open.onsuccess = () => {
        const tx = open.result.transaction('messages', 'readwrite')
        tx.objectStore('messages').put({ conversationId, seq, message })
        tx.oncomplete = () => (open.result.close(), resolve())
      }
    })
  },
}

declare global {
  interface Window {
    memoryTurns: typeof hooks
  }
}
window.memoryTurns = hooks
document.querySelector('#status')!.textContent = 'ready'
