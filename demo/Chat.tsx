import type { ApprovalQueue, ChatClient, ChatMemory } from 'advisor-chain'
import { ApprovalPrompt } from './ApprovalPrompt'
import { useChat, type ChatMessageView } from 'advisor-chain/react'
import { useEffect, useRef, useState } from 'react'
import { scenarios } from './scripted-demo'

const statusText = {
  idle: '',
  loading: 'Loading the conversation…',
  streaming: 'Answering…',
  'running-tools': 'Running tools…',
  error: '',
}

/** The chat: messages streaming in, tool calls as they run, stop and retry. */
export function Chat({
  client,
  memory,
  conversationId,
  offline,
  disabledReason,
  onActivity,
  approvals,
}: {
  approvals: ApprovalQueue
  client: ChatClient | undefined
  memory: ChatMemory | undefined
  conversationId: string
  offline: boolean
  disabledReason?: string
  onActivity: () => void
}) {
  const chat = useChat(client, { ...(memory ? { memory } : {}), conversationId })
  const [draft, setDraft] = useState('')
  const end = useRef<HTMLDivElement>(null)
  const busy = chat.status === 'streaming' || chat.status === 'running-tools'
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' })
  }, [chat.messages])
  useEffect(() => {
    if (!busy) onActivity()
  }, [busy, onActivity])
  const send = (text: string) => {
    if (!client || !text.trim() || busy) return
    void chat.send(text.trim())
    setDraft('')
  }
  return (
    <main className="chat" aria-label="Conversation">
      <div className="messages" aria-live="polite">
        {chat.messages.length === 0 && chat.status !== 'loading' && (
          <div className="empty-state">
            <h2>Ask something</h2>
            <p>
              {offline
                ? 'The offline demo answers from a script. Try one of these — each shows part of the advisor chain in the devtools below.'
                : 'Your model answers with the tools of this page.'}
            </p>
            <div className="suggestions">
              {scenarios.map((scenario) => (
                <button
                  key={scenario.prompt}
                  type="button"
                  className="suggestion"
                  onClick={() => send(scenario.prompt)}
                  disabled={!client}
                >
                  {scenario.prompt}
                  <small>{scenario.shows}</small>
                </button>
              ))}
            </div>
          </div>
        )}
        {chat.messages.map((message) => (
          <Bubble key={message.id} message={message} />
        ))}
        <div ref={end} />
      </div>
      <ApprovalPrompt queue={approvals} />
      {chat.pendingTurn && !busy && (
        <div className="resume-banner" role="status">
          <span>The last turn was waiting for its tools when the page closed.</span>
          <button type="button" className="secondary" onClick={() => void chat.resume()}>
            Continue it
          </button>
        </div>
      )}
      {chat.status === 'error' && chat.error && (
        <div className="error-banner" role="alert" data-testid="chat-error">
          <span>{chat.error.message}</span>
          <button type="button" className="secondary" onClick={() => void chat.retry()}>
            Retry
          </button>
        </div>
      )}
      <form
        className="composer"
        onSubmit={(event) => {
          event.preventDefault()
          send(draft)
        }}
      >
        <input
          aria-label="Message"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder={disabledReason ?? 'Ask about the time, your notes, a sum, the theme…'}
          disabled={!client}
        />
        {busy ? (
          <button type="button" className="stop" onClick={() => chat.stop()}>
            Stop
          </button>
        ) : (
          <button type="submit" className="primary" disabled={!client || !draft.trim()}>
            Send
          </button>
        )}
      </form>
      <p className="status" aria-live="polite">
        {statusText[chat.status]}
        {chat.messages.length > 0 && !busy && (
          <button type="button" className="link" onClick={() => void chat.clear()}>
            Clear conversation
          </button>
        )}
      </p>
    </main>
  )
}

function Bubble({ message }: { message: ChatMessageView }) {
  return (
    <article className={`bubble ${message.role}`} data-testid={`message-${message.role}`}>
      {message.reasoning && (
        <details className="reasoning" data-testid="message-reasoning">
          <summary>{message.pending && !message.text ? 'Thinking…' : 'Thought'}</summary>
          <div className="text">{message.reasoning}</div>
        </details>
      )}
      {message.toolCalls.map((call) => (
        <details key={call.id} className={`tool-call ${call.status}`} data-testid="tool-call">
          <summary>
            <span className={`tool-icon ${call.status}`} aria-hidden="true" />
            {call.name}
            <span className="muted">
              {call.status === 'running' ? 'running…' : call.status === 'error' ? 'failed' : 'done'}
            </span>
          </summary>
          <pre>{call.arguments}</pre>
          {call.result !== undefined && <pre className="result">{call.result}</pre>}
        </details>
      ))}
      {message.text && <div className="text">{message.text}</div>}
      {message.pending && !message.text && !message.reasoning && message.toolCalls.length === 0 && (
        <div className="typing" aria-label="Waiting for the answer" />
      )}
      {message.problem && <div className="problem">{message.problem}</div>}
    </article>
  )
}
