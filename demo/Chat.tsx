import type { ApprovalQueue, ChatClient, ChatMemory, SessionService } from 'advisor-chain'
import { ApprovalPrompt } from './ApprovalPrompt'
import {
  useChat,
  type ChatStatus,
  type ChatMessageView,
  type ChatPartView,
  type ToolCallPartView,
} from 'advisor-chain/react'
import { Fragment, useEffect, useMemo, useRef, useState } from 'react'
import { scenarios } from './scripted-demo'

const statusText: Record<ChatStatus, string> = {
  idle: '',
  loading: 'Loading the conversation…',
  streaming: 'Answering…',
  'running-tools': 'Running tools…',
  'awaiting-approval': 'Waiting for your answer…',
  error: '',
}

/** The chat: messages streaming in, tool calls as they run, stop and retry. */
export function Chat({
  client,
  memory,
  session,
  conversationId,
  offline,
  disabledReason,
  onActivity,
  approvals,
}: {
  approvals: ApprovalQueue
  client: ChatClient | undefined
  memory: ChatMemory | undefined
  /** "Memory: session": the chat shows the whole log, and where the model's view begins. */
  session?: SessionService | undefined
  conversationId: string
  offline: boolean
  disabledReason?: string
  onActivity: () => void
}) {
  const chat = useChat(client, {
    ...(session ? { session } : memory ? { memory } : {}),
    conversationId,
    approvals,
  })
  const [draft, setDraft] = useState('')
  const [files, setFiles] = useState<File[]>([])
  const picker = useRef<HTMLInputElement>(null)
  const end = useRef<HTMLDivElement>(null)
  const busy = chat.status === 'streaming' || chat.status === 'running-tools'
  // The turn still runs while a tool waits for the user's approval: a new message would stop it.
  const awaitingApproval = chat.status === 'awaiting-approval'
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' })
  }, [chat.messages])
  useEffect(() => {
    if (!busy) onActivity()
  }, [busy, onActivity])
  const send = (text: string) => {
    if (!client || (!text.trim() && files.length === 0) || busy || awaitingApproval) return
    void chat.send(text.trim(), files)
    setDraft('')
    setFiles([])
  }
  return (
    <main className="chat" aria-label="Conversation">
      {/* Focusable: a keyboard user scrolls a long conversation with the arrow keys. */}
      <div className="messages" aria-live="polite" tabIndex={0} role="log" aria-label="Messages">
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
          <Fragment key={message.id}>
            {message.viewStart && (
              <div className="view-start" role="separator" data-testid="view-start">
                The model sees from here on; the turns above were compacted
              </div>
            )}
            <Bubble message={message} onApproval={(id, approved) => chat.addToolApproval({ id, approved })} />
          </Fragment>
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
          ref={picker}
          type="file"
          accept="image/png,image/jpeg,image/webp,image/gif,application/pdf,text/plain"
          multiple
          hidden
          data-testid="attach-input"
          onChange={(event) => {
            // Read the list now: clearing the input (so the same file can be picked again) empties it.
            const picked = [...(event.target.files ?? [])]
            setFiles((chosen) => [...chosen, ...picked])
            event.target.value = ''
          }}
        />
        <button
          type="button"
          className="secondary attach"
          aria-label="Attach an image or file"
          onClick={() => picker.current?.click()}
          disabled={!client || busy}
        >
          +
        </button>
        {files.map((file, index) => (
          <span key={`${file.name}-${index}`} className="attachment-chip" data-testid="attachment-chip">
            {file.name}
            <button
              type="button"
              className="link"
              aria-label={`Remove ${file.name}`}
              onClick={() => setFiles((chosen) => chosen.filter((_, at) => at !== index))}
            >
              ×
            </button>
          </span>
        ))}
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
          <button
            type="submit"
            className="primary"
            disabled={!client || awaitingApproval || (!draft.trim() && files.length === 0)}
            {...(awaitingApproval ? { 'aria-describedby': 'send-waits' } : {})}
          >
            Send
          </button>
        )}
      </form>
      {awaitingApproval && (
        <p id="send-waits" className="composer-hint" data-testid="send-waits">
          Answer the tool&apos;s approval first (Allow or Deny): sending now would stop this turn.
        </p>
      )}
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

/** A bubble draws its parts in the order they happened: reasoning, text and tool cards interleaved. */
function Bubble({
  message,
  onApproval,
}: {
  message: ChatMessageView
  onApproval: (id: string, approved: boolean) => void
}) {
  const waiting = message.pending && message.parts.length === 0
  return (
    <article className={`bubble ${message.role}`} data-testid={`message-${message.role}`}>
      {message.parts.map((part, index) => (
        <Part
          key={part.type === 'tool-call' ? part.id : index}
          part={part}
          thinking={!!message.pending && index === message.parts.length - 1}
          onApproval={onApproval}
        />
      ))}
      {waiting && <div className="typing" aria-label="Waiting for the answer" />}
      {message.escalation && (
        <div className="answered-by" data-testid="answered-by">
          Answered by {message.model ?? message.escalation.to}: the round left {message.escalation.from} (
          {message.escalation.reason})
        </div>
      )}
      {message.problem && <div className="problem">{message.problem}</div>}
    </article>
  )
}

function Part({
  part,
  thinking,
  onApproval,
}: {
  part: ChatPartView
  thinking: boolean
  onApproval: (id: string, approved: boolean) => void
}) {
  switch (part.type) {
    case 'text':
      return part.text ? <div className="text">{part.text}</div> : null
    case 'reasoning':
      return (
        <details className="reasoning" data-testid="message-reasoning">
          <summary>{thinking ? 'Thinking…' : 'Thought'}</summary>
          <div className="text">{part.text}</div>
        </details>
      )
    case 'tool-call':
      return <ToolCard call={part} onApproval={onApproval} />
    case 'image':
      return <Thumbnail image={part.image} name={part.name} />
    case 'file':
      return (
        <div className="attachment-file" data-testid="message-file">
          {part.name ?? 'file'}
          {part.data instanceof Blob && <span className="muted"> · {Math.ceil(part.data.size / 1024)} KB</span>}
        </div>
      )
  }
}

const stateText: Record<ToolCallPartView['state'], string> = {
  'streaming-arguments': 'writing arguments…',
  'awaiting-approval': 'waiting for you',
  running: 'running…',
  done: 'done',
  error: 'failed',
  denied: 'declined',
  pending: 'not run yet',
}

function ToolCard({
  call,
  onApproval,
}: {
  call: ToolCallPartView
  onApproval: (id: string, approved: boolean) => void
}) {
  const status =
    call.state === 'done' || call.state === 'error' ? call.state : call.state === 'denied' ? 'error' : 'running'
  const card = (
    <details className={`tool-call ${status}`} data-testid="tool-call" data-state={call.state}>
      <summary>
        <span className={`tool-icon ${status}`} aria-hidden="true" />
        {call.name}
        <span className="muted">
          {stateText[call.state]}
          {call.approval === 'approved' || call.approval === 'edited' ? ` · ${call.approval}` : ''}
        </span>
      </summary>
      <pre>{call.arguments}</pre>
      {call.state === 'awaiting-approval' && (
        <div className="card-approval">
          <button type="button" className="primary" onClick={() => onApproval(call.id, true)}>
            Allow
          </button>
          <button type="button" className="secondary" onClick={() => onApproval(call.id, false)}>
            Deny
          </button>
        </div>
      )}
      {call.result !== undefined && <pre className="result">{call.result}</pre>}
    </details>
  )
  if (!call.agentParts?.length) return card
  // A sub-agent's progress, under the card of the call that runs it.
  return (
    <>
      {card}
      <div className="agent-parts" data-testid="agent-parts" aria-label={`What ${call.name} does`}>
        {call.agentParts.map((part, index) => (
          <Part
            key={part.type === 'tool-call' ? part.id : index}
            part={part}
            thinking={call.state === 'running' && index === call.agentParts!.length - 1}
            onApproval={onApproval}
          />
        ))}
      </div>
    </>
  )
}

/** An attached image, drawn from its Blob (or URL) for as long as the bubble shows it. */
function Thumbnail({ image, name }: { image: string | Blob; name: string | undefined }) {
  const url = useMemo(() => (typeof image === 'string' ? image : URL.createObjectURL(image)), [image])
  useEffect(() => () => (typeof image === 'string' ? undefined : URL.revokeObjectURL(url)), [image, url])
  return <img className="attachment-image" src={url} alt={name ?? 'attached image'} data-testid="message-image" />
}
