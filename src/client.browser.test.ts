import { describe, expect, it } from 'vitest'
import { ChatClient } from './client'
import { ScriptedChatModel } from './models/scripted'

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
