import { describe, expect, it } from 'vitest'
import { BaseAdvisor, type ChatClientRequest, type ChatClientResponse } from './advisor'
import { ChatClient } from '../client'
import { ScriptedChatModel } from '../models'
import { collect } from './testing/collect'

class Counting extends BaseAdvisor {
  readonly name = 'counting'
  readonly order = 0
  befores = 0
  afters = 0
  async before(request: ChatClientRequest): Promise<ChatClientRequest> {
    this.befores++
    return { ...request, context: { ...request.context, seen: true } }
  }
  async after(response: ChatClientResponse): Promise<ChatClientResponse> {
    this.afters++
    return markedAfter(response)
  }
}

function markedAfter(response: ChatClientResponse): ChatClientResponse {
  const chatResponse = response.chatResponse!
  return { ...response, chatResponse: { ...chatResponse, metadata: { ...chatResponse.metadata, after: true } } }
}

const afterMarks = (chunks: ChatClientResponse[]) =>
  chunks.map((chunk) => chunk.chatResponse?.metadata['after'] === true)

describe('BaseAdvisor', () => {
  it('runs before and after once around a call', async () => {
    const advisor = new Counting()
    const response = await ChatClient.builder(new ScriptedChatModel(['x']))
      .defaultAdvisors(advisor)
      .build()
      .prompt('q')
      .call()
      .chatClientResponse()
    expect([advisor.befores, advisor.afters]).toEqual([1, 1])
    expect(response.context['seen']).toBe(true)
  })

  it('runs before once and after only on the chunk that carries the finish reason, as Spring AI does', async () => {
    const advisor = new Counting()
    const client = ChatClient.builder(new ScriptedChatModel([{ text: 'a b c' }]))
      .defaultAdvisors(advisor)
      .build()
    const chunks = await collect(client.prompt('q').stream().chatClientResponse())
    expect([advisor.befores, advisor.afters]).toEqual([1, 1])
    expect(afterMarks(chunks)).toEqual([false, false, true])
    expect(chunks.every((chunk) => chunk.context['seen'] === true)).toBe(true)
  })

  it('runs after on the finish chunk of a stream whose last chunk carries no finish reason', async () => {
    const advisor = new Counting()
    // As OpenAI streams: the finish reason, then a chunk with the usage only.
    const model = new ScriptedChatModel([])
    model.stream = async function* () {
      yield { results: [{ output: { role: 'assistant', text: 'a', toolCalls: [] }, metadata: {} }], metadata: {} }
      const finished = {
        output: { role: 'assistant' as const, text: '', toolCalls: [] },
        metadata: { finishReason: 'stop' },
      }
      yield { results: [finished], metadata: {} }
      yield { results: [], metadata: { usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 } } }
    }
    const client = ChatClient.builder(model).defaultAdvisors(advisor).build()
    const chunks = await collect(client.prompt('q').stream().chatClientResponse())
    expect(afterMarks(chunks)).toEqual([false, true, false])
  })

  it('waits for an async before and after', async () => {
    class Slow extends BaseAdvisor {
      readonly name = 'slow'
      readonly order = 0
      async before(request: ChatClientRequest): Promise<ChatClientRequest> {
        await Promise.resolve()
        return { ...request, context: { ...request.context, seen: true } }
      }
      async after(response: ChatClientResponse): Promise<ChatClientResponse> {
        await Promise.resolve()
        return markedAfter(response)
      }
    }
    const advisor = new Slow()
    const client = ChatClient.builder(new ScriptedChatModel(['x', { text: 'a b' }]))
      .defaultAdvisors(advisor)
      .build()
    const answer = await client.prompt('q').call().chatClientResponse()
    expect(answer.chatResponse!.metadata['after']).toBe(true)
    const chunks = await collect(client.prompt('q').stream().chatClientResponse())
    expect(afterMarks(chunks)).toEqual([false, true])
    expect(chunks[0]!.context['seen']).toBe(true)
  })
})
