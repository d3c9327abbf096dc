import { describe, expect, it } from 'vitest'
import { BaseAdvisor, type ChatClientRequest, type ChatClientResponse } from './advisor'
import { ChatClient } from '../client'
import { ScriptedChatModel } from '../models'

class Counting extends BaseAdvisor {
  readonly name = 'counting'
  readonly order = 0
  befores = 0
  afters = 0
  before(request: ChatClientRequest): ChatClientRequest {
    this.befores++
    return { ...request, context: { ...request.context, seen: true } }
  }
  after(response: ChatClientResponse): ChatClientResponse {
    this.afters++
    return response
  }
}

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

  it('runs before once and after on every chunk of a stream', async () => {
    const advisor = new Counting()
    const client = ChatClient.builder(new ScriptedChatModel([{ text: 'a b c' }]))
      .defaultAdvisors(advisor)
      .build()
    for await (const _ of client.prompt('q').stream().content()) void _
    expect([advisor.befores, advisor.afters]).toEqual([1, 3])
  })
})
