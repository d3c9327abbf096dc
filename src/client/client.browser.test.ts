import { describe, expect, it } from 'vitest'
import { ChatClient } from './client'
import { ScriptedChatModel } from '../models'

describe('ChatClient in Chromium', () => {
  it('runs in a real browser page', () => {
    expect(navigator.userAgent).toMatch(/Chrome/)
  })

  it('streams a scripted answer and aborts a slow one', async () => {
    const client = ChatClient.create(new ScriptedChatModel(['a b c', { text: 'slow', delayMs: 5_000 }]))
    const deltas: string[] = []
    for await (const delta of client.prompt('q').stream().content()) deltas.push(delta)
    expect(deltas.join('')).toBe('a b c')

    const controller = new AbortController()
    const pending = client.prompt('q').signal(controller.signal).call().content()
    controller.abort()
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
  })
})

describe('The tool loop in Chromium', () => {
  it("runs a browser tool between two rounds, validating its arguments with ajv's messages", async () => {
    const { defineTool } = await import('../tools')
    const title = defineTool({
      name: 'set_title',
      description: 'Sets the page title',
      inputSchema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } as const,
      execute: ({ title }) => {
        document.title = title
        return `title is now ${document.title}`
      },
    })
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'set_title', arguments: { title: 42 } }] },
      { toolCalls: [{ name: 'set_title', arguments: { title: 'Hello' } }] },
      'Done.',
    ])
    const answer = await ChatClient.builder(model).defaultTools(title).build().prompt('q').call().content()
    expect(answer).toBe('Done.')
    expect(document.title).toBe('Hello')
    const firstResponse = model.prompts[1]!.messages.at(-1)
    expect(firstResponse).toMatchObject({
      responses: [{ responseData: "Error: invalid arguments for tool 'set_title': /title must be string" }],
    })
  })
})
