import { describe, expect, it } from 'vitest'
import { ObserverAdvisor } from '../advisors'
import { ChatClient } from '../client'
import { TraceCollector } from '../trace'
import { ChatModelError } from './errors'
import { OpenAIChatModel } from './openai'

const PASSWORD = 'pw-Zq9xW7vPk3-browser'

describe('URL credentials in Chromium', () => {
  it("keep out of the error and the trace when the browser's fetch refuses the URL", async () => {
    const model = new OpenAIChatModel({ model: 'm', baseURL: `http://ann:${PASSWORD}@127.0.0.1:9/v1` })
    const collector = new TraceCollector()
    const client = ChatClient.builder(model)
      .defaultAdvisors(new ObserverAdvisor({ sink: collector }))
      .build()
    const error: unknown = await client
      .prompt('hi')
      .call()
      .content()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ChatModelError)
    const seen = [
      (error as Error).message,
      JSON.stringify(error),
      String((error as Error).cause),
      JSON.stringify(collector.events),
    ].join('\n')
    expect(seen).toContain('Could not reach 127.0.0.1:9 at http://127.0.0.1:9/v1/chat/completions')
    expect(seen).not.toContain(PASSWORD)
    expect(seen).not.toContain('ann:')
  })
})
