import type { Message } from 'advisor-chain'
import { prettyJson } from './format'

/** Chat messages as text (never HTML), each tool call shown with the result that answered it. */
export function Messages({
  messages,
  changes,
}: {
  messages: readonly Message[]
  changes?: ReadonlyMap<Message, 'added' | 'removed'>
}) {
  const results = new Map<string, string>()
  for (const message of messages)
    if (message.role === 'tool')
      for (const response of message.responses) results.set(response.id, response.responseData)
  if (messages.length === 0) return <p className="muted">No messages.</p>
  return (
    <div>
      {messages.map((message, index) => {
        const change = changes?.get(message)
        return (
          <section
            key={index}
            className={`message${change ? ` ${change}` : ''}`}
            aria-label={`${message.role} message${change ? `, ${change}` : ''}`}
          >
            <div className="message-head">
              {index + 1} · {message.role}
              {change && <span className="change">{change === 'added' ? '+ added' : '− removed'}</span>}
            </div>
            {message.role === 'tool' ? (
              message.responses.map((response) => (
                <div key={response.id} className={`call${response.responseData.startsWith('Error:') ? ' bad' : ''}`}>
                  <div className="call-name">
                    {response.name} <span className="muted">#{response.id}</span>
                  </div>
                  <pre>{prettyJson(response.responseData)}</pre>
                </div>
              ))
            ) : (
              <>
                {message.text !== '' && <div className="message-text">{message.text}</div>}
                {message.role === 'assistant' &&
                  message.toolCalls.map((call) => {
                    const result = results.get(call.id)
                    return (
                      <div key={call.id} className={`call${result?.startsWith('Error:') ? ' bad' : ''}`}>
                        <div className="call-name">
                          {call.name}() <span className="muted">#{call.id}</span>
                        </div>
                        <pre>{prettyJson(call.arguments)}</pre>
                        {result !== undefined && (
                          <>
                            <div className="muted">→ result</div>
                            <pre>{prettyJson(result)}</pre>
                          </>
                        )}
                      </div>
                    )
                  })}
              </>
            )}
          </section>
        )
      })}
    </div>
  )
}

/** The messages of `current`, with those not in `previous` marked added, and those gone marked removed. */
export function diffMessages(
  previous: readonly Message[],
  current: readonly Message[],
): { messages: Message[]; changes: Map<Message, 'added' | 'removed'> } {
  const key = (message: Message) => JSON.stringify(message)
  const before = new Set(previous.map(key))
  const after = new Set(current.map(key))
  const changes = new Map<Message, 'added' | 'removed'>()
  for (const message of current) if (!before.has(key(message))) changes.set(message, 'added')
  const removed = previous.filter((message) => !after.has(key(message)))
  for (const message of removed) changes.set(message, 'removed')
  return { messages: [...current, ...removed], changes }
}
