import { describe, expect, it } from 'vitest'
import { SessionMemoryAdvisor } from '../../advisors'
import { ScriptedChatModel } from '../../models'
import {
  DefaultSessionService,
  EventFilter,
  InMemorySessionRepository,
  TurnCountTrigger,
  TurnWindowCompactionStrategy,
} from '../../session'
import { ChatClient } from '../client'
import { createChat } from './chat'
import { markViewStart } from './chat-session'
import type { Chat, ChatState } from './chat-state'
import { bubbleOf } from './chat-view'

/** A client on a session that keeps the last turn in the model's view once it holds more than two. */
function onSession(service = new DefaultSessionService(new InMemorySessionRepository())) {
  const model = new ScriptedChatModel((prompt) => {
    const last = prompt.messages.at(-1)!
    return `answer to ${'text' in last ? last.text : '?'}`
  })
  const advisor = SessionMemoryAdvisor.builder(service)
    .compactionTrigger(new TurnCountTrigger(2))
    .compactionStrategy(new TurnWindowCompactionStrategy(1))
    .build()
  return { service, model, client: ChatClient.builder(model).defaultAdvisors(advisor).build() }
}

const shown = (state: ChatState) => state.messages.map(({ text, viewStart }) => (viewStart ? `▸ ${text}` : text))

/** Subscribes (which restores the conversation) and resolves once it is shown. */
function restored(chat: Chat): Promise<ChatState> {
  return new Promise((resolve) => {
    chat.subscribe((state) => {
      if (state.status !== 'loading') resolve(state)
    })
  })
}

describe('a chat on a session', () => {
  it('shows every turn, those compaction covered too, and marks where the model’s view begins', async () => {
    const { client, model, service } = onSession()
    const chat = createChat(client)
    chat.subscribe(() => undefined)
    expect(chat.session).toBe(service)
    await chat.send('one')
    await chat.send('two')
    expect(shown(chat.getSnapshot())).toEqual(['one', 'answer to one', 'two', 'answer to two'])
    await chat.send('three')
    // The third turn was compacted after it ended: the model now sees only that turn.
    expect(shown(chat.getSnapshot())).toEqual([
      'one',
      'answer to one',
      'two',
      'answer to two',
      '▸ three',
      'answer to three',
    ])
    await chat.send('four')
    // Only new messages are sent: the model got the view (turn three) and the question, not the covered turns.
    expect(model.prompts.at(-1)!.messages.map((message) => ('text' in message ? message.text : ''))).toEqual([
      'three',
      'answer to three',
      'four',
    ])
    expect(shown(chat.getSnapshot()).filter((text) => text.startsWith('▸'))).toEqual(['▸ three'])
  })

  it('restores the whole log from the session with the marker, as a reload would', async () => {
    const { client, service } = onSession()
    const first = createChat(client)
    const unsubscribe = first.subscribe(() => undefined)
    for (const question of ['one', 'two', 'three']) await first.send(question)
    unsubscribe()
    expect((await service.getEvents('default', EventFilter.all())).length).toBeGreaterThan(6)

    const again = createChat(ChatClient.create(onSession().model), { session: service })
    const state = await restored(again)
    expect(state.status).toBe('idle')
    expect(shown(state)).toEqual(['one', 'answer to one', 'two', 'answer to two', '▸ three', 'answer to three'])
  })

  it('marks nothing while the model sees the whole conversation, and an empty session is an empty chat', async () => {
    const { client } = onSession()
    const chat = createChat(client)
    chat.subscribe(() => undefined)
    await chat.send('one')
    expect(shown(chat.getSnapshot())).toEqual(['one', 'answer to one'])
    const empty = await restored(createChat(client, { conversationId: 'never-written' }))
    expect(empty).toMatchObject({ status: 'idle', messages: [], error: undefined })
  })

  it('clear deletes the session; setMessages makes it again from the bubbles, with nothing covered', async () => {
    const { client, service } = onSession()
    const chat = createChat(client)
    chat.subscribe(() => undefined)
    for (const question of ['one', 'two', 'three']) await chat.send(question)
    await chat.setMessages((list) => list.slice(2))
    expect(shown(chat.getSnapshot())).toEqual(['two', 'answer to two', 'three', 'answer to three'])
    const log = await service.getEvents('default', EventFilter.all())
    expect(log.map((event) => event.message.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    await chat.clear()
    expect(await service.findById('default')).toBeUndefined()
    expect(chat.getSnapshot().messages).toEqual([])
  })
})

describe('markViewStart', () => {
  const bubbles = [
    bubbleOf({ id: 'u1', role: 'user' }, [{ type: 'text', text: 'one' }]),
    bubbleOf({ id: 'a1', role: 'assistant' }, [{ type: 'text', text: 'answer' }]),
    bubbleOf({ id: 'u2', role: 'user' }, [{ type: 'text', text: 'two' }]),
    bubbleOf({ id: 'a2', role: 'assistant' }, [{ type: 'text', text: 'answer' }]),
  ]

  it('marks the one bubble the view starts at, and only the bubbles that change are new objects', () => {
    const marked = markViewStart(bubbles, { users: 1, role: 'user' })
    expect(marked.map((bubble) => bubble.viewStart === true)).toEqual([false, false, true, false])
    expect(marked[0]).toBe(bubbles[0])
    expect(markViewStart(marked, { users: 1, role: 'user' })).toBe(marked)
    const moved = markViewStart(marked, { users: 2, role: 'assistant' })
    expect(moved.map((bubble) => bubble.viewStart === true)).toEqual([false, false, false, true])
    expect(moved[2]).not.toHaveProperty('viewStart')
  })

  it('unmarks every bubble when the model sees them all, or when the bubble named is not shown', () => {
    const marked = markViewStart(bubbles, { users: 1, role: 'assistant' })
    expect(marked[1]!.viewStart).toBe(true)
    expect(markViewStart(marked, undefined).some((bubble) => bubble.viewStart)).toBe(false)
    expect(markViewStart(bubbles, { users: 5, role: 'user' })).toBe(bubbles)
  })
})
