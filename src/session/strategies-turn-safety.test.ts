import { describe, expect, it } from 'vitest'
import type { CompactionStrategy } from './compaction'
import { DefaultSessionService } from './default-session-service'
import { EventFilter } from './event-filter'
import { InMemorySessionRepository } from './in-memory-session-repository'
import {
  RecursiveSummarizationCompactionStrategy,
  type SummaryClient,
} from './recursive-summarization-compaction-strategy'
import { SlidingWindowCompactionStrategy } from './sliding-window-compaction-strategy'
import { isReal } from './session-view'
import { isTurnStart } from './session'
import { seeded, toolPairsWhole, turn } from './testing/events'
import { TokenCountCompactionStrategy } from './token-count-compaction-strategy'
import { TurnCountTrigger } from './triggers'
import { TurnWindowCompactionStrategy } from './turn-window-compaction-strategy'

/** A summarizer that answers briefly, fails or answers at length, as `random` says. */
function summarizer(random: () => number): SummaryClient {
  const spec = {
    system: () => spec,
    user: () => spec,
    signal: () => spec,
    call: () => ({
      content: async () => {
        const roll = random()
        if (roll < 0.2) throw new Error('summary failed')
        return roll < 0.35 ? 'long '.repeat(5000) : `summary ${roll}`
      },
    }),
  }
  return { prompt: () => spec }
}

const strategies: Record<string, (random: () => number) => CompactionStrategy> = {
  'sliding window': (random) => new SlidingWindowCompactionStrategy(1 + Math.floor(random() * 12)),
  'turn window': (random) => new TurnWindowCompactionStrategy(1 + Math.floor(random() * 4)),
  'token count': (random) => new TokenCountCompactionStrategy(20 + Math.floor(random() * 600)),
  'recursive summarization': (random) => {
    const keep = 1 + Math.floor(random() * 10)
    return new RecursiveSummarizationCompactionStrategy(summarizer(random), keep, Math.floor(random() * keep))
  },
}

describe.each(Object.keys(strategies))('%s compaction over random logs with tool rounds', (name) => {
  it('keeps whole turns: the view starts a turn, every tool call keeps its result, nothing is lost', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const random = seeded(seed)
      const service = new DefaultSessionService(new InMemorySessionRepository())
      await service.create({ id: 's' })
      const turns = 2 + Math.floor(random() * 12)
      for (let n = 0; n < turns; n++) {
        const branch = random() < 0.15 ? 'orchestrator.helper' : undefined
        for (const event of turn('s', n, Math.floor(random() * 4), branch)) await service.appendEvent(event)
        if (random() < 0.5) {
          const before = (await service.getEvents('s')).filter(isReal)
          const result = await service.compact('s', new TurnCountTrigger(1), strategies[name]!(random))
          const view = await service.getEvents('s')
          const real = view.filter(isReal)
          const context = `seed ${seed}, turn ${n}`
          expect(result.unchanged || real.length === 0 || isTurnStart(real[0]!), context).toBe(true)
          expect(toolPairsWhole(view.map((event) => event.message)), context).toBe(true)
          expect(
            [...result.coveredEvents, ...real].map((event) => event.id),
            context,
          ).toEqual(before.map((event) => event.id))
        }
      }
      const all = await service.getEvents('s', EventFilter.all())
      expect(all.filter(isTurnStart)).toHaveLength(turns)
    }
  })
})
