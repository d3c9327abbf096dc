import { StrictMode, act } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { afterEach, describe, expect, it } from 'vitest'
import { sampleEvent, sampleRun } from '../src/trace/testing/sample-trace'
import { AdvisorDevtoolsPanel } from './panel'
import { createDevtoolsStore } from './store'

// A session compaction (SessionMemoryAdvisor's `compaction` event, or the note older traces hold)
// as its own row of the run: what left the view, the strategy and the trigger, the tokens before →
// after, the summary.

let root: Root | undefined
let container: HTMLElement | undefined

afterEach(async () => {
  await act(async () => root?.unmount())
  container?.remove()
  localStorage.clear()
})

async function rowOf(store: ReturnType<typeof createDevtoolsStore>): Promise<HTMLElement | null> {
  store.flush()
  container = document.createElement('div')
  document.body.append(container)
  root = createRoot(container)
  await act(async () => root!.render(<StrictMode>{<AdvisorDevtoolsPanel store={store} />}</StrictMode>))
  const shadow = container.querySelector('[data-advisor-chain-devtools-host]')!.shadowRoot!
  return shadow.querySelector<HTMLElement>('[data-testid="compaction"]')
}

describe('a session compaction in the devtools', () => {
  it('is drawn as its own row from the compaction event: what left, the trigger, the tokens, the summary', async () => {
    const store = createDevtoolsStore()
    const run = sampleRun({ answer: 'At nine.' })
    const last = run.at(-1)!
    for (const event of run) store.emit(event)
    store.emit(
      sampleEvent('compaction', {
        runId: last.runId,
        round: 0,
        seq: last.seq + 1,
        t: last.t + 1,
        advisor: 'Session Memory Advisor',
      }),
    )
    const row = await rowOf(store)
    expect(row?.textContent).toContain('COMPACTED')
    expect(row?.textContent).toContain(
      '2 events left the view · recursive-summarization (context-window) · ~40 → 28 tokens',
    )
    expect(row?.textContent).toContain('summary: The user asked when the shop opens: at nine.')
    const left = [...row!.querySelectorAll('[data-testid="compaction-left"] li')].map((item) => item.textContent)
    expect(left).toEqual(['user: When does the shop open?', 'assistant: At nine.'])
  })

  it("is drawn the same from an older trace's compaction note", async () => {
    const store = createDevtoolsStore()
    const run = sampleRun({ answer: 'At nine.' })
    const last = run.at(-1)!
    for (const event of run) store.emit(event)
    store.emit(
      sampleEvent('note', {
        runId: last.runId,
        round: 0,
        seq: last.seq + 1,
        t: last.t + 1,
        advisor: 'Session Memory Advisor',
        message: 'session compacted: 6 events left the view (recursive-summarization, context-window)',
        data: {
          sessionId: 's',
          compaction: {
            trigger: 'context-window',
            strategy: 'recursive-summarization',
            covered: 6,
            preserved: 4,
            summary: 'The user asked about opening hours.',
            tokensSaved: 300,
            tokensBefore: 900,
            tokensAfter: 600,
          },
        },
      }),
    )
    const row = await rowOf(store)
    expect(row?.textContent).toContain('COMPACTED')
    expect(row?.textContent).toContain(
      '6 events left the view · recursive-summarization (context-window) · ~900 → 600 tokens',
    )
    expect(row?.textContent).toContain('summary: The user asked about opening hours.')
  })
})
