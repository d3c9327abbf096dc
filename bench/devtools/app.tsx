// The page the devtools bench drives (bench/devtools/run.mjs): a chat through useChat with a scripted
// model, observed into a devtools store, with the devtools closed (`?panel=closed`) or open and docked
// at the bottom (`?panel=open`). Public entries only. The runner calls `window.devtoolsBench` and
// clicks the page's button while the model streams; the page measures each click's latency (from the
// input event to the frame after its update) and records long tasks.
import {
  ChatClient,
  ObserverAdvisor,
  ScriptedChatModel,
  ToolCallingAdvisor,
  defineTool,
  type ScriptedReply,
} from 'advisor-chain'
import { AdvisorDevtools, createDevtoolsStore } from 'advisor-chain/devtools'
import { useChat } from 'advisor-chain/react'
import { useRef, useState, type MouseEvent } from 'react'
import { createRoot } from 'react-dom/client'

export interface DevtoolsBench {
  /** One answer of `chunks` text chunks, `delayMs` apart; resolves with its duration in ms. */
  stream(chunks: number, delayMs: number): Promise<number>
  /** One question answered after `rounds` tool rounds, each model call taking `delayMs`; resolves with ms. */
  rounds(rounds: number, delayMs: number): Promise<number>
  /** Click latencies (ms) since the last call, and long tasks (start, duration) since the page loaded. */
  take(): { clicks: number[]; longTasks: Array<{ start: number; duration: number }> }
}

declare global {
  interface Window {
    devtoolsBench?: DevtoolsBench
  }
}

const longTasks: Array<{ start: number; duration: number }> = []
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) longTasks.push({ start: entry.startTime, duration: entry.duration })
}).observe({ type: 'longtask', buffered: true })
let clicks: number[] = []

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

// What the model does next, set by the bench before each question.
let nextReplies: (turn: number) => ScriptedReply = () => ({ text: 'idle' })
let turnOffset = 0
const model = new ScriptedChatModel((_prompt, turn) => nextReplies(turn - turnOffset))
const store = createDevtoolsStore()
const client = ChatClient.builder(model)
  .defaultTools(add)
  .defaultAdvisors(new ObserverAdvisor({ sink: store }))
  .toolCallingAdvisor(ToolCallingAdvisor.builder().maxIterations(10_000))
  .build()

const open = new URLSearchParams(location.search).get('panel') === 'open'

function App() {
  const chat = useChat(client)
  const [pings, setPings] = useState(0)
  const send = useRef((text: string) => chat.send(text))
  send.current = (text: string) => chat.send(text)
  const ask = async (replies: typeof nextReplies, question: string) => {
    turnOffset = model.prompts.length
    nextReplies = replies
    const start = performance.now()
    await send.current(question)
    return performance.now() - start
  }
  window.devtoolsBench ??= {
    stream: (chunks, delayMs) =>
      ask(() => ({ chunks: Array.from({ length: chunks }, (_, index) => `word${index % 10} `), delayMs }), 'Stream'),
    rounds: (rounds, delayMs) =>
      ask(
        (turn) =>
          turn < rounds
            ? { toolCalls: [{ name: 'add', arguments: { a: turn, b: 1 } }], delayMs }
            : { text: 'Done.', delayMs },
        'Loop',
      ),
    take() {
      const taken = clicks
      clicks = []
      return { clicks: taken, longTasks: [...longTasks] }
    },
  }
  const ping = (event: MouseEvent) => {
    const at = event.timeStamp
    setPings((count) => count + 1)
    // The frame that shows the update: after the next animation frame's paint.
    requestAnimationFrame(() => setTimeout(() => clicks.push(performance.now() - at)))
  }
  return (
    <main style={{ font: '14px system-ui', padding: 16, paddingBottom: 'var(--advisor-devtools-bottom, 0px)' }}>
      <button type="button" data-testid="ping" onClick={ping} style={{ padding: '8px 16px' }}>
        Ping {pings}
      </button>
      <span data-testid="status"> {chat.status}</span>
      {/* The conversation as an app shows it: each message's tool calls, then its text. */}
      <ol style={{ maxHeight: 240, overflow: 'auto', whiteSpace: 'pre-wrap' }}>
        {chat.messages.map((message) => (
          <li key={message.id} data-role={message.role}>
            {message.toolCalls.length > 0 && <small>{message.toolCalls.map((call) => call.name).join(', ')} </small>}
            {message.text}
          </li>
        ))}
      </ol>
      <AdvisorDevtools store={store} enabled initialIsOpen={open} position="bottom" />
    </main>
  )
}

createRoot(document.getElementById('root')!).render(<App />)
