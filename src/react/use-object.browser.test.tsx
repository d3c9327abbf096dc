import { StrictMode, useLayoutEffect } from 'react'
import { createRoot } from 'react-dom/client'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { ChatClient } from '../client'
import { ScriptedChatModel, type ScriptStep } from '../models'
import { OutputParseError } from '../schema'
import { WatchedModel } from './testing/watched-model'
import { useObject, type UseObject, type UseObjectOptions } from './use-object'

const trip = z.object({ city: z.string(), days: z.array(z.object({ title: z.string() })) })
type Trip = z.infer<typeof trip>
const LISBON = { city: 'Lisbon', days: [{ title: 'Alfama' }, { title: 'Belém' }] }
// A long answer: the test acts on it (stops, unmounts, submits again) long before it ends.
const longTrip = (city: string) => ({ city, days: Array.from({ length: 300 }, (_, i) => ({ title: `Day ${i + 1}` })) })
const slowly = (value: unknown): ScriptStep => {
  const text = JSON.stringify(value)
  return { text, chunks: text.match(/[^]{1,3}/g)!, delayMs: 5 }
}

/** What a mounted component saw: the hook's latest result and every committed render of it. */
interface Probe {
  latest: UseObject<Trip> | undefined
  renders: Array<Pick<UseObject<Trip>, 'object' | 'error' | 'isLoading'>>
}

function ObjectProbe({
  client,
  options,
  probe,
}: {
  client: ChatClient
  options: UseObjectOptions<typeof trip>
  probe: Probe
}) {
  const planned = useObject(client, options)
  // In each commit, as it happens: only states that really reached the screen are recorded, in order.
  useLayoutEffect(() => {
    probe.latest = planned
    probe.renders.push({ object: planned.object, error: planned.error, isLoading: planned.isLoading })
  })
  return <p data-testid="city">{planned.object?.city}</p>
}

const mounted: Array<() => void> = []
afterEach(() => mounted.splice(0).forEach((unmount) => unmount()))

async function mount(client: ChatClient, options: UseObjectOptions<typeof trip>, { strict = false } = {}) {
  const container = document.createElement('div')
  document.body.append(container)
  const root = createRoot(container)
  const probe: Probe = { latest: undefined, renders: [] }
  const probed = <ObjectProbe client={client} options={options} probe={probe} />
  root.render(strict ? <StrictMode>{probed}</StrictMode> : probed)
  let live = true
  const unmount = () => {
    if (!live) return
    live = false
    root.unmount()
    container.remove()
  }
  mounted.push(unmount)
  await expect.poll(() => probe.latest).toBeDefined()
  return { probe, planned: () => probe.latest!, container, unmount }
}

describe('useObject', () => {
  it('shows the object filling in while it streams, then the validated value', async () => {
    const { probe, planned, container } = await mount(ChatClient.create(new ScriptedChatModel([slowly(LISBON)])), {
      schema: trip,
    })
    await planned().submit('Plan Lisbon')
    await expect.poll(() => planned().isLoading).toBe(false)
    const shown = probe.renders.map((render) => render.object)
    expect(shown).toContainEqual({ city: 'Lisbon', days: [{ title: 'Alfama' }] })
    expect(shown).not.toContainEqual({ city: 'Lis' })
    expect(probe.renders.some((render) => render.isLoading)).toBe(true)
    expect(planned().object).toEqual(LISBON)
    expect(planned().error).toBeUndefined()
    expect(container.textContent).toBe('Lisbon')
  })

  it('aborts the running request when the component unmounts (in StrictMode too)', async () => {
    const model = new WatchedModel([slowly(longTrip('Lisbon'))])
    const onFinish = vi.fn()
    const { planned, unmount } = await mount(ChatClient.create(model), { schema: trip, onFinish }, { strict: true })
    const submitted = planned().submit('Plan Lisbon')
    await expect.poll(() => planned().object?.city).toBe('Lisbon')
    unmount()
    await submitted
    expect(model.requests.map((request) => request.ended)).toEqual(['aborted'])
    expect(onFinish).not.toHaveBeenCalled()
  })

  it('a new submit aborts the running one, and stop() keeps what arrived', async () => {
    const model = new WatchedModel([slowly(longTrip('Lisbon')), slowly(longTrip('Porto'))])
    const { planned } = await mount(ChatClient.create(model), {
      schema: trip,
      prompt: (city) => `Plan a day trip to ${city}.`,
    })
    const first = planned().submit({ text: 'Lisbon' })
    await expect.poll(() => planned().object?.city).toBe('Lisbon')
    const second = planned().submit({ text: 'Porto' })
    await expect.poll(() => planned().object?.city).toBe('Porto')
    planned().stop()
    await Promise.all([first, second])
    expect(model.requests.map((request) => [request.question, request.ended])).toEqual([
      [expect.stringContaining('Plan a day trip to Lisbon.'), 'aborted'],
      [expect.stringContaining('Plan a day trip to Porto.'), 'aborted'],
    ])
    expect(planned()).toMatchObject({ object: { city: 'Porto' }, error: undefined, isLoading: false })
  })

  it('shows an OutputParseError when the answer is not the schema, keeping the last partial object', async () => {
    const wrong = { city: 'Lisbon', days: [{ title: 1 }] }
    const { planned } = await mount(ChatClient.create(new ScriptedChatModel([slowly(wrong)])), { schema: trip })
    await planned().submit('Plan Lisbon')
    await expect.poll(() => planned().isLoading).toBe(false)
    expect(planned().error).toBeInstanceOf(OutputParseError)
    expect(planned().object).toEqual(wrong)
  })
})
