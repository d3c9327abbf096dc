import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import type { ChatModel, ChatResponse, Prompt } from '../../core'
import { ScriptedChatModel, type ScriptStep } from '../../models'
import { OutputParseError } from '../../schema'
import { ChatClient } from '../client'
import { createStreamedObject } from './streamed-object'
import type { StreamedObject, StreamedObjectState } from './streamed-object-state'

/** A scripted model that keeps the signal of each request it streams. */
class SignalWatchingModel implements ChatModel {
  readonly provider = 'scripted'
  readonly signals: Array<AbortSignal | undefined> = []
  readonly #scripted: ScriptedChatModel

  constructor(script: ScriptStep[]) {
    this.#scripted = new ScriptedChatModel(script)
  }

  get prompts(): Prompt[] {
    return this.#scripted.prompts
  }

  call(prompt: Prompt, signal?: AbortSignal): Promise<ChatResponse> {
    return this.#scripted.call(prompt, signal)
  }

  stream(prompt: Prompt, signal?: AbortSignal): AsyncGenerator<ChatResponse, void, undefined> {
    this.signals.push(signal)
    return this.#scripted.stream(prompt, signal)
  }
}

const trip = z.object({ city: z.string(), days: z.array(z.object({ title: z.string() })) })
const LISBON = { city: 'Lisbon', days: [{ title: 'Alfama' }, { title: 'Belém' }] }
const PORTO = { city: 'Porto', days: [{ title: 'Ribeira' }] }
const slowly = (value: unknown): ScriptStep => {
  const text = JSON.stringify(value)
  return { text, chunks: text.match(/[^]{1,3}/g)!, delayMs: 1 }
}

/** Every state a listener heard, in order. */
function watch<T>(streamed: StreamedObject<T>) {
  const states: StreamedObjectState<T>[] = []
  const unsubscribe = streamed.subscribe((state) => states.push(state))
  return { states, unsubscribe }
}

/** Resolves once the state passes `test` (checked on every change). */
function until<T>(streamed: StreamedObject<T>, test: (state: StreamedObjectState<T>) => boolean) {
  return new Promise<void>((resolve) => {
    if (test(streamed.getSnapshot())) return resolve()
    const unsubscribe = streamed.subscribe((state) => {
      if (!test(state)) return
      unsubscribe()
      resolve()
    })
  })
}

describe('createStreamedObject', () => {
  it('shows the object filling in while it streams, loading until the end', async () => {
    const client = ChatClient.create(new ScriptedChatModel([slowly(LISBON)]))
    const streamed = createStreamedObject(client, { schema: trip })
    const { states } = watch(streamed)
    await streamed.submit('Plan Lisbon')
    const objects = states.map((state) => state.object)
    expect(objects).toContainEqual({ city: 'Lisbon', days: [{ title: 'Alfama' }] })
    expect(objects).not.toContainEqual({ city: 'Lis' })
    expect(states.slice(0, -1).every((state) => state.isLoading)).toBe(true)
    expect(streamed.getSnapshot()).toEqual({ object: LISBON, error: undefined, isLoading: false })
  })

  it('ends with the validated value, which the schema may complete, and tells onFinish', async () => {
    const withDefault = z.object({ city: z.string(), days: z.array(z.string()).default([]) })
    const onFinish = vi.fn()
    const client = ChatClient.create(new ScriptedChatModel([slowly({ city: 'Lisbon' })]))
    const streamed = createStreamedObject(client, { schema: withDefault, onFinish })
    const { states } = watch(streamed)
    await streamed.submit({ text: 'Plan Lisbon' })
    expect(states.map((state) => state.object)).toContainEqual({ city: 'Lisbon' })
    expect(streamed.getSnapshot().object).toEqual({ city: 'Lisbon', days: [] })
    expect(onFinish).toHaveBeenCalledExactlyOnceWith({ object: { city: 'Lisbon', days: [] }, error: undefined })
  })

  it('sends the prompt made of the submitted text', async () => {
    const model = new ScriptedChatModel([JSON.stringify(LISBON)])
    const streamed = createStreamedObject(ChatClient.create(model), {
      schema: trip,
      prompt: (city) => `Plan a day trip to ${city}.`,
    })
    await streamed.submit('Lisbon')
    const asked = model.prompts[0]!.messages.findLast((message) => message.role === 'user')
    expect(asked?.text).toContain('Plan a day trip to Lisbon.')
  })

  it('stops: the request is aborted, the object keeps what arrived, and nothing more is written', async () => {
    const model = new SignalWatchingModel([slowly(LISBON)])
    const onFinish = vi.fn()
    const streamed = createStreamedObject(ChatClient.create(model), { schema: trip, onFinish })
    watch(streamed)
    const submitted = streamed.submit('Plan Lisbon')
    await until(streamed, (state) => state.object?.city === 'Lisbon')
    streamed.stop()
    expect(model.signals[0]?.aborted).toBe(true)
    const stopped = streamed.getSnapshot()
    await submitted
    expect(stopped).toMatchObject({ object: { city: 'Lisbon' }, error: undefined, isLoading: false })
    expect(streamed.getSnapshot()).toBe(stopped)
    expect(onFinish).not.toHaveBeenCalled()
  })

  it('aborts the running submit when a new one is made, and shows only the new object from then on', async () => {
    const model = new SignalWatchingModel([slowly(LISBON), slowly(PORTO)])
    const streamed = createStreamedObject(ChatClient.create(model), { schema: trip })
    const { states: heard } = watch(streamed)
    const first = streamed.submit('Plan Lisbon')
    await until(streamed, (state) => state.object?.city === 'Lisbon')
    const mark = heard.length
    const second = streamed.submit('Plan Porto')
    expect(model.signals[0]?.aborted).toBe(true)
    await Promise.all([second, first])
    const states = heard.slice(mark)
    expect(model.signals[1]?.aborted).toBe(false)
    expect(states[0]).toEqual({ object: undefined, error: undefined, isLoading: true })
    expect(states.some((state) => state.object?.city === 'Lisbon')).toBe(false)
    expect(streamed.getSnapshot()).toEqual({ object: PORTO, error: undefined, isLoading: false })
  })

  it('fails with an OutputParseError when the answer is not the schema, keeping the last partial object', async () => {
    const wrong = { city: 'Lisbon', days: [{ title: 1 }] }
    const onError = vi.fn()
    const onFinish = vi.fn()
    const client = ChatClient.create(new ScriptedChatModel([slowly(wrong)]))
    const streamed = createStreamedObject(client, { schema: trip, onError, onFinish })
    await streamed.submit('Plan Lisbon')
    const { object, error, isLoading } = streamed.getSnapshot()
    expect(error).toBeInstanceOf(OutputParseError)
    expect(object).toEqual(wrong)
    expect(isLoading).toBe(false)
    expect(onError).toHaveBeenCalledExactlyOnceWith(error)
    expect(onFinish).toHaveBeenCalledExactlyOnceWith({ object: undefined, error })
  })

  it("shows the model's error and clears it with the next submit", async () => {
    const client = ChatClient.create(new ScriptedChatModel([{ error: 'rate limited' }, JSON.stringify(PORTO)]))
    const streamed = createStreamedObject(client, { schema: trip })
    await streamed.submit('Plan Lisbon')
    expect(streamed.getSnapshot().error?.message).toContain('rate limited')
    await streamed.submit('Plan Porto')
    expect(streamed.getSnapshot()).toEqual({ object: PORTO, error: undefined, isLoading: false })
  })

  it('clears: stops what runs and forgets the object', async () => {
    const model = new SignalWatchingModel([slowly(LISBON)])
    const streamed = createStreamedObject(ChatClient.create(model), { schema: trip })
    watch(streamed)
    const submitted = streamed.submit('Plan Lisbon')
    await until(streamed, (state) => state.object?.city === 'Lisbon')
    streamed.clear()
    expect(model.signals[0]?.aborted).toBe(true)
    await submitted
    expect(streamed.getSnapshot()).toEqual({ object: undefined, error: undefined, isLoading: false })
  })

  it('stops when the last subscriber leaves, and submits nothing until one comes back', async () => {
    const model = new SignalWatchingModel([slowly(LISBON), JSON.stringify(PORTO)])
    const streamed = createStreamedObject(ChatClient.create(model), { schema: trip })
    const { unsubscribe } = watch(streamed)
    const submitted = streamed.submit('Plan Lisbon')
    await until(streamed, (state) => state.object?.city === 'Lisbon')
    unsubscribe()
    expect(model.signals[0]?.aborted).toBe(true)
    await submitted
    await streamed.submit('Plan Porto')
    expect(model.signals).toHaveLength(1)
    watch(streamed)
    await streamed.submit('Plan Porto')
    expect(streamed.getSnapshot().object).toEqual(PORTO)
  })

  it('types the object as a deep partial of the schema, and the finished one as the schema type', async () => {
    const client = ChatClient.create(new ScriptedChatModel([JSON.stringify(LISBON)]))
    let finished: { city: string; days: Array<{ title: string }> } | undefined
    const streamed = createStreamedObject(client, { schema: trip, onFinish: ({ object }) => (finished = object) })
    await streamed.submit('Plan Lisbon')
    const title: string | undefined = streamed.getSnapshot().object?.days?.[0]?.title
    expect(title).toBe('Alfama')
    expect(finished).toEqual(LISBON)
  })
})
