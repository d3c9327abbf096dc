import { describe, expect, it, vi } from 'vitest'
import { ChatClient } from '../../client'
import { ScriptedChatModel } from '../../models'
import { defineTool } from '../../tools'
import type { TraceEvent } from '../../trace'
import { ObserverAdvisor } from './observer'

describe('The performance track in Chromium', () => {
  it('leaves no user-timing entry behind after 1,000 observed runs', async () => {
    const tool = defineTool({
      name: 'lookup',
      description: 'Looks a word up',
      inputSchema: { type: 'object', properties: { word: { type: 'string' } } },
      execute: ({ word }) => `found ${String(word)}`,
    })
    const script = () =>
      new ScriptedChatModel([{ toolCalls: [{ id: 'c1', name: 'lookup', arguments: { word: 'a' } }] }, 'done'])
    const timeStamp = vi.spyOn(console, 'timeStamp')
    const events: TraceEvent[] = []
    const before = performance.getEntriesByType('measure').length
    try {
      for (let run = 0; run < 1000; run++) {
        events.length = 0
        // Default options: in a page the observer keeps the track.
        const observer = new ObserverAdvisor({ sink: { emit: (event) => events.push(event) } })
        const client = ChatClient.builder(script()).defaultTools(tool).defaultAdvisors(observer).build()
        expect(await client.prompt('q').call().content()).toBe('done')
      }
      // Two rounds (each a model call) and one tool per run were drawn on the track.
      expect(timeStamp).toHaveBeenCalledTimes(3000)
      const roundEnd = events.find((event) => event.type === 'round-end')!
      expect(timeStamp).toHaveBeenCalledWith(
        'round 1',
        roundEnd.t - (roundEnd as { durationMs: number }).durationMs,
        roundEnd.t,
        'advisor-chain',
        undefined,
        'primary',
      )
    } finally {
      timeStamp.mockRestore()
    }
    expect(performance.getEntriesByType('measure').length).toBe(before)
    expect(performance.getEntriesByType('mark').length).toBe(0)
  })
})
