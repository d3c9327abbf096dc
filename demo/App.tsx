import { ChatClient, ScriptedChatModel, type Message } from 'advisor-chain'
import { useMemo, useRef, useState } from 'react'
import { loggingAdvisor, type ChainLogEntry } from './logging-advisor'

const replies = [
  'Hello! I am the scripted model of the offline demo. Every word you see streamed through two advisors.',
  'Each request passes the outer advisor, then the inner one, then reaches the model; the response comes back the other way.',
]

export function App() {
  const [messages, setMessages] = useState<Message[]>([])
  const [draft, setDraft] = useState('')
  const [chainLog, setChainLog] = useState<ChainLogEntry[]>([])
  const [busy, setBusy] = useState(false)
  const abort = useRef<AbortController | null>(null)

  const client = useMemo(() => {
    const log = (entry: ChainLogEntry) => setChainLog((entries) => [...entries, entry])
    const model = new ScriptedChatModel((_prompt, turn) => ({ text: replies[turn % replies.length]!, delayMs: 30 }))
    return ChatClient.builder(model)
      .defaultSystem('You are the advisor-chain demo.')
      .defaultAdvisors(loggingAdvisor('Outer logger', 100, log), loggingAdvisor('Inner logger', 500, log))
      .build()
  }, [])

  async function send(text: string) {
    const history = messages
    setMessages([...history, { role: 'user', text }, { role: 'assistant', text: '', toolCalls: [] }])
    setChainLog([])
    setBusy(true)
    abort.current = new AbortController()
    try {
      const stream = client
        .prompt()
        .messages(...history)
        .user(text)
        .signal(abort.current.signal)
        .stream()
        .content()
      for await (const delta of stream) {
        setMessages((list) => {
          const last = list.at(-1)!
          return [...list.slice(0, -1), { ...last, text: ('text' in last ? last.text : '') + delta }] as Message[]
        })
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      setMessages((list) => [...list.slice(0, -1), { role: 'assistant', text: `⚠ ${reason}`, toolCalls: [] }])
    } finally {
      setBusy(false)
    }
  }

  return (
    <div className="page">
      <header>
        <h1>advisor-chain</h1>
        <p>Offline demo — scripted replies</p>
      </header>
      <main className="chat" aria-label="Conversation">
        {messages.length === 0 && <p className="empty">Say something to start a conversation.</p>}
        {messages.map((message, index) => (
          <div key={index} className={`bubble ${message.role}`} data-testid={`message-${message.role}`}>
            {'text' in message ? message.text : ''}
          </div>
        ))}
      </main>
      <form
        className="composer"
        onSubmit={(event) => {
          event.preventDefault()
          if (!draft.trim() || busy) return
          void send(draft.trim())
          setDraft('')
        }}
      >
        <input
          aria-label="Message"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder="Ask something…"
        />
        {busy ? (
          <button type="button" onClick={() => abort.current?.abort()}>
            Stop
          </button>
        ) : (
          <button type="submit">Send</button>
        )}
      </form>
      <section className="chain-log" aria-label="Advisor chain">
        <h2>Advisor chain</h2>
        <ol>
          {chainLog.map((entry, index) => (
            <li key={index} data-testid="chain-entry">
              {entry.phase === 'before' ? '→' : '←'} {entry.advisor} (order {entry.order}) {entry.phase}
            </li>
          ))}
        </ol>
      </section>
    </div>
  )
}
