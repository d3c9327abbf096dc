import { afterEach, describe, expect, it, vi } from 'vitest'
import { ChatClient } from '../../client'
import { ScriptedChatModel } from '../../models'
import { ObserverAdvisor } from './observer'

// Whether an observer with default options draws on Chrome's Performance panel.
describe('The performance track by default', () => {
  const env = process.env as Record<string, string | undefined>
  const mode = env.NODE_ENV
  const timeStamp = Object.getOwnPropertyDescriptor(console, 'timeStamp')
  afterEach(() => {
    env.NODE_ENV = mode
    delete (globalThis as { document?: unknown }).document
    if (timeStamp) Object.defineProperty(console, 'timeStamp', timeStamp)
    else delete (console as Partial<Console>).timeStamp
  })

  /** The marks one observed call makes with default options, in a page (`document`) or not, of a build of `nodeEnv`. */
  async function marks(nodeEnv: string | undefined, page = true): Promise<number> {
    if (page) (globalThis as { document?: unknown }).document = {}
    if (nodeEnv === undefined) delete env.NODE_ENV
    else env.NODE_ENV = nodeEnv
    const mark = vi.fn()
    console.timeStamp = mark
    const observer = new ObserverAdvisor({ sink: { emit() {} } })
    await ChatClient.builder(new ScriptedChatModel(['hi']))
      .defaultAdvisors(observer)
      .build()
      .prompt('q')
      .call()
      .content()
    return mark.mock.calls.length
  }

  it('draws the round in a page of a development build, as React draws its Performance tracks', async () => {
    expect(await marks('development')).toBe(1)
    expect(await marks(undefined)).toBe(1)
  })

  it('draws nothing in a production build: a page pays for the track only when it asks', async () => {
    expect(await marks('production')).toBe(0)
  })

  it('draws nothing outside a page', async () => {
    expect(await marks('development', false)).toBe(0)
  })
})
