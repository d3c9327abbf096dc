import { describe, expect, it } from 'vitest'
import {
  HIGHEST_PRECEDENCE,
  LOWEST_PRECEDENCE,
  type CallAdvisor,
  type CallAdvisorChain,
  type ChatClientResponse,
  type StreamAdvisor,
} from './advisor'
import { AdvisorChain } from './chain'
import type { ChainEventListener } from './chain-events'
import { RUN_ID_KEY } from './context-keys'
import { recordingAdvisor, request } from './testing/recording-advisor'

const terminal = (log: string[]): CallAdvisor => ({
  name: 'call',
  order: LOWEST_PRECEDENCE,
  adviseCall: async (req): Promise<ChatClientResponse> => {
    log.push('model')
    return { chatResponse: null, context: req.context }
  },
})

const names = (chain: CallAdvisorChain) => chain.callAdvisors.map((a) => a.name)

describe('AdvisorChain', () => {
  it('sorts advisors by order, lowest first', () => {
    const log: string[] = []
    const chain = AdvisorChain.of([
      recordingAdvisor('c', 30, log),
      recordingAdvisor('a', 10, log),
      recordingAdvisor('b', 20, log),
    ])
    expect(names(chain)).toEqual(['a', 'b', 'c'])
  })

  it('keeps insertion order for equal orders', () => {
    const log: string[] = []
    const chain = AdvisorChain.of([
      recordingAdvisor('first', 5, log),
      recordingAdvisor('early', 1, log),
      recordingAdvisor('second', 5, log),
      recordingAdvisor('third', 5, log),
    ])
    expect(names(chain)).toEqual(['early', 'first', 'second', 'third'])
  })

  it('keeps insertion order for equal orders inside copies', () => {
    const log: string[] = []
    const early = recordingAdvisor('early', 1, log)
    const chain = AdvisorChain.of([
      recordingAdvisor('x', 5, log),
      early,
      recordingAdvisor('y', 5, log),
      recordingAdvisor('z', 5, log),
    ])
    expect(names(chain.copy(early))).toEqual(['x', 'y', 'z'])
  })

  it('copy returns exactly the advisors strictly after the given one', () => {
    const log: string[] = []
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((n, i) => recordingAdvisor(n, i, log)) as unknown as [
      CallAdvisor,
      CallAdvisor,
      CallAdvisor,
      CallAdvisor,
    ]
    const chain = AdvisorChain.of([d, c, b, a])
    expect(names(chain.copy(b))).toEqual(['c', 'd'])
    expect(names(chain.copy(a))).toEqual(['b', 'c', 'd'])
  })

  it('copy of the last advisor is empty', () => {
    const log: string[] = []
    const last = recordingAdvisor('last', 9, log)
    const chain = AdvisorChain.of([recordingAdvisor('a', 1, log), last])
    expect(chain.copy(last).callAdvisors).toEqual([])
  })

  it('copy leaves the original chain unchanged', () => {
    const log: string[] = []
    const a = recordingAdvisor('a', 1, log)
    const chain = AdvisorChain.of([a, recordingAdvisor('b', 2, log)])
    chain.copy(a)
    expect(names(chain)).toEqual(['a', 'b'])
  })

  it('copy(null) fails with "The after advisor must not be null"', () => {
    const chain = AdvisorChain.of([recordingAdvisor('a', 1, [])])
    expect(() => chain.copy(null as unknown as CallAdvisor)).toThrow('The after advisor must not be null')
  })

  it('copy of an advisor outside the chain names it', () => {
    const chain = AdvisorChain.of([recordingAdvisor('a', 1, [])])
    expect(() => chain.copy(recordingAdvisor('stranger', 1, []))).toThrow(
      'The specified advisor is not part of the chain: stranger',
    )
  })

  it('nextCall with nothing left rejects with "No CallAdvisors available to execute"', async () => {
    await expect(AdvisorChain.of([]).nextCall(request())).rejects.toThrow('No CallAdvisors available to execute')
  })

  it('nextStream with nothing left fails with "No StreamAdvisors available to execute"', async () => {
    const read = async () => {
      for await (const _ of AdvisorChain.of([]).nextStream(request())) void _
    }
    await expect(read()).rejects.toThrow('No StreamAdvisors available to execute')
  })

  it('rejects an object that is neither a call nor a stream advisor with a TypeError naming it', () => {
    expect(() => AdvisorChain.of([{ name: 'lazy', order: 0 }])).toThrow(TypeError)
    expect(() => AdvisorChain.of([{ name: 'lazy', order: 0 }])).toThrow(/lazy/)
  })

  it('does not change callAdvisors while the chain is walked', async () => {
    const log: string[] = []
    let seen: string[] = []
    const chain = AdvisorChain.of([
      recordingAdvisor('a', 1, log),
      {
        name: 'inspector',
        order: 2,
        adviseCall: (req, next) => {
          seen = names(next)
          return next.nextCall(req)
        },
      } satisfies CallAdvisor,
      terminal(log),
    ])
    const before = names(chain)
    await chain.nextCall(request())
    expect(names(chain)).toEqual(before)
    expect(seen).toEqual(before)
  })

  it('re-runs exactly the downstream advisors each time an advisor calls chain.copy(this)', async () => {
    const log: string[] = []
    const looping: CallAdvisor = {
      name: 'loop',
      order: HIGHEST_PRECEDENCE + 300,
      async adviseCall(req, chain) {
        let response: ChatClientResponse | undefined
        for (let round = 0; round < 3; round++) response = await chain.copy(this).nextCall(req)
        return response!
      },
    }
    const chain = AdvisorChain.of([
      recordingAdvisor('outer', HIGHEST_PRECEDENCE + 200, log),
      looping,
      recordingAdvisor('inner', HIGHEST_PRECEDENCE + 400, log),
      terminal(log),
    ])
    await chain.nextCall(request())
    expect(log).toEqual([
      'outer:before',
      ...Array.from({ length: 3 }, () => ['inner:before', 'model', 'inner:after']).flat(),
      'outer:after',
    ])
  })

  it('walks stream advisors in order and back', async () => {
    const log: string[] = []
    const chain = AdvisorChain.of([
      recordingAdvisor('b', 2, log),
      recordingAdvisor('a', 1, log),
      {
        name: 'stream',
        order: LOWEST_PRECEDENCE,
        async *adviseStream(req) {
          log.push('model')
          yield { chatResponse: null, context: req.context }
        },
      } satisfies StreamAdvisor,
    ])
    for await (const _ of chain.nextStream(request())) void _
    expect(log).toEqual(['a:before', 'b:before', 'model', 'b:after', 'a:after'])
  })

  it('keeps call-only advisors out of the stream chain', () => {
    const chain = AdvisorChain.of([
      { name: 'only-call', order: 1, adviseCall: (r, c) => c.nextCall(r) } satisfies CallAdvisor,
    ])
    expect(chain.streamAdvisors).toEqual([])
    expect(names(chain)).toEqual(['only-call'])
  })
})

describe('AdvisorChain owns the run', () => {
  const listening = (heard: Array<[string, unknown, string]>, order = 10): CallAdvisor & ChainEventListener => ({
    name: 'listener',
    order,
    adviseCall: (req, chain) => chain.nextCall(req),
    onChainEvent: (event, context, source) => heard.push([event.type, context[RUN_ID_KEY], source]),
  })

  it('mints one run id, hands it down in the context, and tells listeners the run started and ended', async () => {
    const heard: Array<[string, unknown, string]> = []
    const seen: unknown[] = []
    const looking: CallAdvisor = {
      name: 'looking',
      order: 20,
      adviseCall: (req, chain) => {
        seen.push(req.context[RUN_ID_KEY])
        return chain.nextCall(req)
      },
    }
    await AdvisorChain.of([listening(heard), looking, terminal([])]).nextCall(request('q'))
    const runId = seen[0]
    expect(typeof runId).toBe('string')
    expect(heard).toEqual([
      ['run-start', runId, 'chain'],
      ['run-end', runId, 'chain'],
    ])
  })

  it('starts no run in a copy: a round re-run through copy(this) belongs to the run it is part of', async () => {
    const heard: Array<[string, unknown, string]> = []
    const looping: CallAdvisor = {
      name: 'looping',
      order: 5,
      adviseCall: async (req, chain) => {
        await chain.copy(looping).nextCall(req)
        return chain.copy(looping).nextCall(req)
      },
    }
    await AdvisorChain.of([looping, listening(heard), terminal([])]).nextCall(request('q'))
    expect(heard.map(([type]) => type)).toEqual(['run-start', 'run-end'])
  })

  it('keeps a run id the caller gave (a fork names its run), and ends a failed run with its error', async () => {
    const heard: Array<[string, unknown, string]> = []
    const failing: CallAdvisor = {
      name: 'failing',
      order: 20,
      adviseCall: () => Promise.reject(new Error('down')),
    }
    const named = { ...request('q'), context: { [RUN_ID_KEY]: 'run-7' } }
    await expect(AdvisorChain.of([listening(heard), failing]).nextCall(named)).rejects.toThrow('down')
    expect(heard).toEqual([
      ['run-start', 'run-7', 'chain'],
      ['run-end', 'run-7', 'chain'],
    ])
  })
})
