import { describe, expect, it } from 'vitest'
import { assistantMessage, toolResponseMessage, userMessage, type Message } from '../core'
import { dropOrphans } from './repair'

const call = (id: string) => ({ id, name: 'weather', arguments: '{}' })
const answer = (...ids: string[]) =>
  toolResponseMessage(ids.map((id) => ({ id, name: 'weather', responseData: 'sun' })))

describe('dropOrphans', () => {
  it('leaves a whole conversation as it is', () => {
    const messages = [userMessage('q'), assistantMessage('', [call('a')]), answer('a'), assistantMessage('sunny')]
    expect(dropOrphans(messages, false)).toEqual({ messages, dropped: 0 })
  })

  it('drops a tool call whose response record was lost, in the middle of the history', () => {
    const messages = [userMessage('q'), assistantMessage('', [call('a')]), assistantMessage('sunny'), userMessage('q2')]
    expect(dropOrphans(messages, true)).toEqual({
      messages: [userMessage('q'), assistantMessage('sunny'), userMessage('q2')],
      dropped: 1,
    })
  })

  it('keeps the answered calls of a message and its text, dropping only the unanswered one', () => {
    const messages: Message[] = [userMessage('q'), assistantMessage('Checking.', [call('a'), call('b')]), answer('a')]
    expect(dropOrphans(messages, false)).toEqual({
      messages: [userMessage('q'), assistantMessage('Checking.', [call('a')]), answer('a')],
      dropped: 1,
    })
  })

  it('drops a response without its call, and a second response to one call', () => {
    const messages: Message[] = [
      userMessage('q'),
      answer('ghost'),
      assistantMessage('', [call('a')]),
      answer('a'),
      answer('a'),
      assistantMessage('ok'),
    ]
    expect(dropOrphans(messages, false)).toEqual({
      messages: [userMessage('q'), assistantMessage('', [call('a')]), answer('a'), assistantMessage('ok')],
      dropped: 2,
    })
  })

  it('keeps the unanswered calls that end the conversation when asked (a turn to resume)', () => {
    const messages = [userMessage('q'), assistantMessage('', [call('a')])]
    expect(dropOrphans(messages, true)).toEqual({ messages, dropped: 0 })
    expect(dropOrphans(messages, false)).toEqual({ messages: [userMessage('q')], dropped: 1 })
  })
})
