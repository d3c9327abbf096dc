import { describe, expect, it } from 'vitest'
import { assistantMessage, toolResponseMessage, userMessage, type Message } from '../../core'
import { ChatClient } from '../../client'
import { IndexedDBChatMemoryRepository, MEMORY_DB_VERSION, MessageWindowChatMemory } from '../../memory'
import { ScriptedChatModel } from '../../models'
import { TraceCollector } from '../../trace'
import { MessageChatMemoryAdvisor } from '.'
import { ObserverAdvisor } from '../observer/observer'

const roles = (messages: readonly Message[]) => messages.map((m) => m.role)

function corrupt(databaseName: string, seq: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(databaseName, MEMORY_DB_VERSION)
    open.onerror = () => reject(open.error ?? new Error('open failed'))
    open.onsuccess = () => {
      const db = open.result
      const tx = db.transaction('messages', 'readwrite')
      tx.objectStore('messages').put({
        conversationId: 'default',
        seq,
        message: { role: 'tool', responses: 'garbled' },
      })
      tx.oncomplete = () => (db.close(), resolve())
    }
  })
}

describe('chat memory in IndexedDB repairs a corrupt tool turn on read', () => {
  it('drops the orphan tool call, saves the repair and says so in a warning event', async () => {
    const databaseName = `test-repair-${Date.now()}`
    const repository = new IndexedDBChatMemoryRepository({ databaseName, onCorruptRecord: () => {} })
    const memory = MessageWindowChatMemory.builder().chatMemoryRepository(repository).build()
    await memory.add('default', [
      userMessage('Weather?'),
      assistantMessage('', [{ id: 'w1', name: 'weather', arguments: '{}' }]),
      toolResponseMessage([{ id: 'w1', name: 'weather', responseData: 'sun' }]),
      assistantMessage('Sunny.'),
    ])
    await corrupt(databaseName, 2)
    const collector = new TraceCollector()
    const model = new ScriptedChatModel(['Fine.'])
    const client = ChatClient.builder(model)
      .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build(), new ObserverAdvisor({ sink: collector }))
      .build()
    expect(await client.prompt('Tomorrow?').call().content()).toBe('Fine.')
    expect(roles(model.prompts[0]!.messages)).toEqual(['user', 'assistant', 'user'])
    expect(roles(await memory.get('default'))).toEqual(['user', 'assistant', 'user', 'assistant'])
    expect(collector.ofType('note').filter((note) => note.level === 'warning')).toMatchObject([
      { message: 'memory dropped 1 tool call or response without its counterpart', data: { dropped: 1 } },
    ])
    await repository.close()
  })
})
