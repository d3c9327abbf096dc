import { partsOf, type FilePart, type ImagePart, type Message, type ToolCall } from 'advisor-chain/trace'
import { memo, useState } from 'react'
import type { Change } from '../prompt'
import { formatCount, prettyJson } from './format'
import { GrowingText } from './growing-text'

/** Past this many messages the middle of a prompt is folded away until asked for. */
const FOLD_OVER = 40
const SHOWN_AT_END = 24

/**
 * Chat messages as text (never HTML), each tool call shown with the result that answered it
 * (matched by id, wherever the result sits in the list).
 */
export const Messages = memo(function Messages({
  messages,
  changes,
  results,
}: {
  messages: readonly Message[]
  changes?: ReadonlyMap<Message, Change>
  /** Results known from elsewhere (the round's tool executions), by tool call id. */
  results?: ReadonlyMap<string, { text: string; failed: boolean }>
}) {
  const [unfolded, setUnfolded] = useState(false)
  if (messages.length === 0) return <p className="muted">No messages.</p>
  const answers = new Map(results)
  for (const message of messages)
    if (message.role === 'tool')
      for (const response of message.responses)
        answers.set(response.id, { text: response.responseData, failed: response.responseData.startsWith('Error:') })
  const fold = !unfolded && messages.length > FOLD_OVER
  // Folded: the system message (if first), then a button, then the latest messages.
  const head = fold ? (messages[0]?.role === 'system' ? 1 : 0) : messages.length
  const tail = fold ? messages.length - SHOWN_AT_END : messages.length
  const view = (index: number) => (
    <MessageView
      key={index}
      message={messages[index]!}
      index={index}
      change={changes?.get(messages[index]!)}
      answers={answers}
    />
  )
  const items = []
  for (let index = 0; index < head; index++) items.push(view(index))
  if (fold)
    items.push(
      <li key="fold" className="fold">
        <button type="button" className="link" onClick={() => setUnfolded(true)}>
          Show {tail - head} earlier messages
        </button>
      </li>,
    )
  for (let index = Math.max(head, tail); index < messages.length; index++) items.push(view(index))
  return (
    // Unfolded, a long list lays out and paints only the messages in view.
    <ol
      className={fold || messages.length <= FOLD_OVER ? 'messages' : 'messages long'}
      aria-label={`${messages.length} messages`}
    >
      {items}
    </ol>
  )
})

/**
 * The answer as it streams: its text (and reasoning) grow by appending, the rest of the inspector
 * stays as it was.
 */
export function StreamingAnswer({ text, reasoning }: { text: string; reasoning: string }) {
  return (
    <ol className="messages" aria-label="1 message">
      <li>
        <section className="message assistant" aria-label="assistant message, streaming" data-testid="prompt-message">
          <div className="message-head">
            <span className="role">assistant</span>
            <span className="index">streaming</span>
          </div>
          {reasoning !== '' && (
            <details className="reasoning" data-testid="message-reasoning">
              <summary>Reasoning · {formatCount(reasoning.length)} characters</summary>
              <GrowingText className="message-text" text={reasoning} />
            </details>
          )}
          {text !== '' && <GrowingText className="message-text" text={text} testId="streaming-text" />}
        </section>
      </li>
    </ol>
  )
}

interface MessageViewProps {
  message: Message
  index: number
  change: Change | undefined
  answers: ReadonlyMap<string, { text: string; failed: boolean }>
}

/** The ids of the tool calls a message makes, whose answers it shows. */
function callIds(message: Message): string[] {
  if (message.role !== 'assistant') return []
  const calls = message.parts ? partsOf(message).filter((part) => part.type === 'tool-call') : message.toolCalls
  return calls.map((call) => call.id)
}

/** A message already shown stays as it is while the round's list grows or its fold moves. */
const sameMessageView = (before: MessageViewProps, after: MessageViewProps) =>
  before.message === after.message &&
  before.index === after.index &&
  before.change === after.change &&
  callIds(after.message).every((id) => {
    const was = before.answers.get(id)
    const is = after.answers.get(id)
    return was?.text === is?.text && was?.failed === is?.failed
  })

const MessageView = memo(function MessageView({ message, index, change, answers }: MessageViewProps) {
  return (
    <li>
      <section
        className={`message ${message.role}${change ? ` ${change}` : ''}`}
        aria-label={`${message.role} message${change ? `, ${change}` : ''}, #${index + 1}`}
        data-testid="prompt-message"
        data-change={change}
      >
        <div className="message-head">
          <span className="role">{message.role}</span>
          <span className="index">#{index + 1}</span>
          {change && <span className={`change ${change}`}>{change === 'added' ? '+ added' : '− removed'}</span>}
        </div>
        {message.role === 'tool' ? (
          message.responses.map((response) => (
            <div key={response.id} className={`call result${response.responseData.startsWith('Error:') ? ' bad' : ''}`}>
              <div className="call-name">
                {response.name} <span className="muted">result · {response.id}</span>
              </div>
              <pre>{prettyJson(response.responseData)}</pre>
            </div>
          ))
        ) : message.role !== 'system' && message.parts ? (
          <Parts message={message} answers={answers} />
        ) : (
          <>
            {message.role === 'assistant' && message.reasoning && <Reasoning text={message.reasoning} />}
            {message.text !== '' && <div className="message-text">{message.text}</div>}
            {message.role === 'assistant' &&
              message.toolCalls.map((call) => <ToolCallView key={call.id} call={call} answer={answers.get(call.id)} />)}
          </>
        )}
      </section>
    </li>
  )
}, sameMessageView)

/** A message made of parts, in their order: reasoning folded, images as thumbnails, files as name and size. */
function Parts({
  message,
  answers,
}: {
  message: Message
  answers: ReadonlyMap<string, { text: string; failed: boolean }>
}) {
  return (
    <>
      {partsOf(message).map((part, index) => {
        switch (part.type) {
          case 'reasoning':
            return part.text ? <Reasoning key={index} text={part.text} /> : null
          case 'text':
            return part.text ? (
              <div key={index} className="message-text">
                {part.text}
              </div>
            ) : null
          case 'tool-call':
            return <ToolCallView key={index} call={part} answer={answers.get(part.id)} />
          case 'image':
            return <Thumbnail key={index} part={part} />
          case 'file':
            return <Attachment key={index} part={part} />
          default:
            return null
        }
      })}
    </>
  )
}

/**
 * An image of the prompt. Only links that cannot reach the network are drawn (a data: image or a
 * blob: URL of this page), so an imported trace never makes the panel fetch anything.
 */
function Thumbnail({ part }: { part: ImagePart }) {
  const link = typeof part.image === 'string' ? part.image : ''
  const drawable = /^(data:image\/|blob:)/.test(link)
  return (
    <figure className="attachment image" data-testid="prompt-image">
      {drawable ? (
        <img src={link} alt={part.name ?? 'image'} />
      ) : (
        <div className="attachment-missing">{/^https?:/.test(link) ? link : 'image not kept in the trace'}</div>
      )}
      <figcaption>{describe(part)}</figcaption>
    </figure>
  )
}

function Attachment({ part }: { part: FilePart }) {
  return (
    <div className="attachment file" data-testid="prompt-file">
      {describe(part)}
    </div>
  )
}

function describe(part: ImagePart | FilePart): string {
  const size =
    part.size === undefined ? '' : part.size < 1024 ? `${part.size} B` : `${(part.size / 1024).toFixed(1)} KB`
  return [part.name, part.mediaType, size].filter(Boolean).join(' · ') || part.type
}

/** What the model thought before answering, folded so the answer stays in view. */
function Reasoning({ text }: { text: string }) {
  return (
    <details className="reasoning" data-testid="message-reasoning">
      <summary>Reasoning · {formatCount(text.length)} characters</summary>
      <div className="message-text">{text}</div>
    </details>
  )
}

export function ToolCallView({
  call,
  answer,
}: {
  call: ToolCall
  answer: { text: string; failed: boolean } | undefined
}) {
  return (
    <div className={`call${answer?.failed ? ' bad' : ''}`} data-testid="inspector-tool-call">
      <div className="call-name">
        {call.name}() <span className="muted">{call.id}</span>
      </div>
      <div className="call-grid">
        <div>
          <div className="caption">Arguments</div>
          <pre data-testid="tool-arguments">{prettyJson(call.arguments)}</pre>
        </div>
        <div>
          <div className="caption">{answer === undefined ? 'Result' : answer.failed ? 'Error' : 'Result'}</div>
          {answer === undefined ? (
            <pre className="muted">not answered yet</pre>
          ) : (
            <pre data-testid="tool-result">{prettyJson(answer.text)}</pre>
          )}
        </div>
      </div>
    </div>
  )
}
