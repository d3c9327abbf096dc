import type { Message } from 'advisor-chain/trace'
import { describe, expect, it } from 'vitest'
import { sampleRun } from '../src/trace/testing/sample-trace'
import { diffPrompts, promptOf } from './prompt'
import { createDevtoolsStore } from './store'

const system: Message = { role: 'system', text: 'You are brief.' }
const user: Message = { role: 'user', text: 'What time is it?' }
const call: Message = { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'now', arguments: '{}' }] }
const result: Message = { role: 'tool', responses: [{ id: 'c1', name: 'now', responseData: '12:00' }] }

describe('the prompt of a round', () => {
  it('is the exact list of messages sent, with shared prefixes resolved', () => {
    const store = createDevtoolsStore()
    for (const event of sampleRun({ toolRounds: 2 })) store.emit(event)
    const run = store.runs()[0]!
    expect(run.rounds.map((round) => promptOf(run, round)!.map((message) => message.role))).toEqual([
      ['system', 'user'],
      ['system', 'user', 'assistant', 'tool'],
      ['system', 'user', 'assistant', 'tool', 'assistant', 'tool'],
    ])
  })

  it('falls back to the messages the request carries when the earlier request is missing', () => {
    const store = createDevtoolsStore()
    const events = sampleRun({ toolRounds: 1 })
    for (const event of events.filter((event) => event.type !== 'model-request' || event.round !== 1)) store.emit(event)
    const run = store.runs()[0]!
    expect(promptOf(run, run.rounds[1])!.map((message) => message.role)).toEqual(['assistant', 'tool'])
  })
})

describe('the prompt diff', () => {
  it('marks what the loop appended as added, using the shared count', () => {
    const { messages, changes } = diffPrompts([system, user], [system, user, call, result], 2)
    expect(messages).toEqual([system, user, call, result])
    expect([...changes]).toEqual([
      [call, 'added'],
      [result, 'added'],
    ])
  })

  it('marks what a round without history dropped as removed', () => {
    const { messages, changes } = diffPrompts([system, user, call], [system, result], 1)
    expect(messages).toEqual([system, result, user, call])
    expect(changes.get(result)).toBe('added')
    expect([changes.get(user), changes.get(call)]).toEqual(['removed', 'removed'])
  })

  it('compares by content when there is no shared count, counting repeated messages', () => {
    const again: Message = { role: 'user', text: 'What time is it?' }
    const { changes } = diffPrompts([system, user], [{ ...system }, { ...user }, again])
    expect([...changes.entries()]).toEqual([[again, 'added']])
  })
})
