import type { ConversationInfo, IndexedDBChatMemoryRepository } from 'advisor-chain'
import { useEffect, useState } from 'react'

/** The conversations kept in IndexedDB; they survive a reload. */
export function Conversations({
  repository,
  current,
  onSelect,
  refresh,
}: {
  repository: IndexedDBChatMemoryRepository
  current: string
  onSelect: (id: string) => void
  refresh: number
}) {
  const [list, setList] = useState<ConversationInfo[]>([])
  useEffect(() => {
    let live = true
    repository
      .conversations()
      .then((conversations) => live && setList(conversations))
      .catch(() => live && setList([]))
    return () => {
      live = false
    }
  }, [repository, refresh, current])
  const known = list.some((conversation) => conversation.id === current)
  return (
    <nav className="conversations" aria-label="Conversations">
      <button type="button" className="new-chat" onClick={() => onSelect(`chat-${Date.now().toString(36)}`)}>
        + New conversation
      </button>
      <ul>
        {!known && (
          <li>
            <button type="button" aria-current="true">
              New conversation
            </button>
          </li>
        )}
        {list.map((conversation) => (
          <li key={conversation.id}>
            <button
              type="button"
              aria-current={conversation.id === current}
              onClick={() => onSelect(conversation.id)}
              data-testid="conversation"
            >
              <span className="title">{conversation.title}</span>
              <small>
                {conversation.messageCount} messages ·{' '}
                {new Date(conversation.updatedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}
              </small>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  )
}
