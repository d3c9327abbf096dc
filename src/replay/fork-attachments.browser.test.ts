// A fork in the page that recorded the run sends the user's picked image again (the trace holds a
// blob: link of the page, never the bytes), also after the trace went through a file.
import { describe, expect, it } from 'vitest'
import { ObserverAdvisor } from '../advisors'
import { ChatClient } from '../client'
import { imagePart, textPart, type UserMessage } from '../core'
import { ScriptedChatModel } from '../models'
import { ForkError, TraceCollector, exportTrace, importTrace } from '../trace'
import { forkRun } from './fork-run'

describe('forkRun with attachments, in Chromium', () => {
  it('finds the picked File again from its trace link, and refuses a link of another page', async () => {
    const file = new File([new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])], 'cat.png', { type: 'image/png' })
    const question: UserMessage = {
      role: 'user',
      text: 'What is this?',
      parts: [textPart('What is this?'), imagePart(file)],
    }
    const sink = new TraceCollector()
    const recorded = ChatClient.builder(new ScriptedChatModel([{ text: 'A cat.' }]))
      .defaultAdvisors(new ObserverAdvisor({ sink, performanceTrack: false }))
      .build()
    await recorded.prompt().messages(question).call().content()
    const traced = sink.ofType('model-request')[0]!.messages[0] as UserMessage
    expect((traced.parts![1] as { image: string }).image).toMatch(/^blob:http/)

    const model = new ScriptedChatModel([{ text: 'Still a cat.' }])
    const client = ChatClient.builder(model).build()
    const trace = importTrace(exportTrace(sink.events))
    await forkRun(client, { trace, round: 1 })
    const sent = model.prompts[0]!.messages.find((message) => message.role === 'user') as UserMessage
    expect((sent.parts![1] as { image: unknown }).image).toBe(file)

    const elsewhere = importTrace(exportTrace(sink.events).replace(/blob:http[^"]+/g, `blob:${location.origin}/0-0`))
    await expect(forkRun(client, { trace: elsewhere, round: 1 })).rejects.toThrow(ForkError)
    expect(model.prompts).toHaveLength(1)
  })
})
