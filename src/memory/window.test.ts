import { describe, expect, it } from 'vitest'
import {
  assistantMessage,
  assistantMessageOf,
  imagePart,
  systemMessage,
  toolResponseMessage,
  userMessage,
  userMessageOf,
  type Message,
} from '../core'
import { InMemoryChatMemoryRepository } from './in-memory-repository'
import { MessageWindowChatMemory, windowOf } from './window'

const call = (id: string) => assistantMessage('', [{ id, name: 't', arguments: '{}' }])
const answer = (id: string) => toolResponseMessage([{ id, name: 't', responseData: 'ok' }])
const texts = (messages: Message[]) =>
  messages.map((m) =>
    m.role === 'tool'
      ? `tool:${m.responses[0]!.id}`
      : `${m.role}:${m.text}${m.role === 'assistant' && m.toolCalls.length ? `(${m.toolCalls[0]!.id})` : ''}`,
  )

describe('MessageWindowChatMemory', () => {
  it('adds messages to a conversation and reads them back', async () => {
    const memory = MessageWindowChatMemory.builder().build()
    await memory.add('c', [userMessage('hi')])
    await memory.add('c', [assistantMessage('hello')])
    expect(texts(await memory.get('c'))).toEqual(['user:hi', 'assistant:hello'])
    expect(await memory.get('other')).toEqual([])
  })

  it('keeps the last maxMessages messages', () => {
    const stored = [userMessage('1'), assistantMessage('a1'), userMessage('2'), assistantMessage('a2')]
    expect(texts(windowOf(stored, [userMessage('3'), assistantMessage('a3')], 4))).toEqual([
      'user:2',
      'assistant:a2',
      'user:3',
      'assistant:a3',
    ])
  })

  it('moves the cut forward to the next user message so a window never starts mid-turn', () => {
    const stored = [userMessage('1'), call('x'), answer('x'), assistantMessage('a1'), userMessage('2')]
    expect(texts(windowOf(stored, [assistantMessage('a2')], 4))).toEqual(['user:2', 'assistant:a2'])
  })

  it('never keeps a tool response without its call', () => {
    const stored = [
      userMessage('1'),
      call('x'),
      answer('x'),
      call('y'),
      answer('y'),
      assistantMessage('done'),
      userMessage('2'),
    ]
    const window = windowOf(stored, [assistantMessage('a2')], 5)
    expect(window[0]!.role).toBe('user')
    expect(window.some((m) => m.role === 'tool')).toBe(false)
  })

  it('keeps a turn longer than the window whole rather than losing it', () => {
    const turn = [userMessage('1'), call('x'), answer('x'), call('y'), answer('y')]
    expect(texts(windowOf([], [...turn, assistantMessage('done')], 3))).toEqual(
      texts([...turn, assistantMessage('done')]),
    )
  })

  it('always keeps system messages', () => {
    const stored = [
      systemMessage('rules'),
      userMessage('1'),
      assistantMessage('a1'),
      userMessage('2'),
      assistantMessage('a2'),
    ]
    expect(texts(windowOf(stored, [userMessage('3')], 3))).toEqual(['system:rules', 'user:3'])
  })

  it('replaces the old system message with a new one', () => {
    const stored = [systemMessage('old'), userMessage('1')]
    expect(texts(windowOf(stored, [systemMessage('new'), userMessage('2')], 10))).toEqual([
      'user:1',
      'system:new',
      'user:2',
    ])
  })

  it('uses the repository in one atomic update when it can', async () => {
    const repository = new InMemoryChatMemoryRepository()
    let updates = 0
    const counting = Object.assign(Object.create(repository) as InMemoryChatMemoryRepository, {
      update: (id: string, change: (m: Message[]) => Message[]) => (updates++, repository.update(id, change)),
    })
    await MessageWindowChatMemory.builder()
      .chatMemoryRepository(counting)
      .build()
      .add('c', [userMessage('x')])
    expect(updates).toBe(1)
  })

  it('refuses a window of less than one message', () => {
    expect(() => MessageWindowChatMemory.builder().maxMessages(0).build()).toThrow(
      'maxMessages must be a whole number of at least 1, got 0',
    )
  })
})

describe('window memory with parts', () => {
  const question = userMessageOf([
    { type: 'text', text: 'Weather on these photos?' },
    imagePart('data:image/png;base64,AAAA'),
    imagePart('data:image/png;base64,BBBB'),
  ])
  const interleaved = assistantMessageOf([
    { type: 'text', text: 'Oslo first. ' },
    { type: 'tool-call', id: 'w1', name: 'weather', arguments: '{}' },
    { type: 'text', text: 'Then Rome.' },
    { type: 'tool-call', id: 'w2', name: 'weather', arguments: '{}' },
  ])
  const turn: Message[] = [
    question,
    interleaved,
    toolResponseMessage([
      { id: 'w1', name: 'weather', responseData: 'sunny' },
      { id: 'w2', name: 'weather', responseData: 'rain' },
    ]),
    assistantMessage('Sunny, then rain.'),
  ]

  it('counts a message as one however many parts it has', () => {
    expect(windowOf([], [...turn, userMessage('thanks'), assistantMessage('welcome')], 6)).toHaveLength(6)
  })

  it('keeps or drops a turn with all its parts: the window starts at the next user message', () => {
    const kept = windowOf([], [...turn, userMessage('thanks'), assistantMessage('welcome')], 5)
    expect(kept).toEqual([userMessage('thanks'), assistantMessage('welcome')])
    expect(windowOf([], turn, 2)).toEqual(turn)
  })
})
