import { StrictMode, act } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { afterEach, describe, expect, it } from 'vitest'
import { sampleEvent, sampleRun } from '../src/trace/testing/sample-trace'
import { AdvisorDevtoolsPanel } from './panel'
import { createDevtoolsStore } from './store'

// A retrieval (QuestionAnswerAdvisor) in the panel: a DOCS row under the round that used it, and
// the documents with their scores in the inspector.

let root: Root | undefined
let container: HTMLElement | undefined

afterEach(async () => {
  await act(async () => root?.unmount())
  container?.remove()
  localStorage.clear()
})

describe('a retrieval in the devtools', () => {
  it('shows a DOCS row under its round and the retrieved documents when selected', async () => {
    const store = createDevtoolsStore()
    const run = sampleRun({ answer: 'At nine.' })
    const runId = run[0]!.runId
    const retrieval = sampleEvent('retrieval', {
      runId,
      round: 1,
      seq: 1,
      t: run[0]!.t + 1,
      advisor: 'Question Answer Advisor',
    })
    for (const event of run) store.emit(event.seq >= 1 ? { ...event, seq: event.seq + 1 } : event)
    store.emit(retrieval)
    store.flush()
    container = document.createElement('div')
    document.body.append(container)
    root = createRoot(container)
    await act(async () => root!.render(<StrictMode>{<AdvisorDevtoolsPanel store={store} />}</StrictMode>))
    const shadow = container.querySelector('[data-advisor-chain-devtools-host]')!.shadowRoot!
    const row = shadow.querySelector<HTMLElement>('[data-testid="timeline-retrieval"]')
    expect(row?.textContent).toContain('DOCS')
    expect(row?.textContent).toContain('1 document · best 0.82 hours.md#0')
    await act(async () => row!.click())
    const inspector = shadow.querySelector('[data-testid="inspector"]')!
    expect(inspector.textContent).toContain('When does the shop open?')
    const documents = inspector.querySelectorAll('[data-testid="retrieved-document"]')
    expect(documents).toHaveLength(1)
    expect(documents[0]!.textContent).toContain('hours.md#0')
    expect(documents[0]!.textContent).toContain('score 0.820')
    expect(documents[0]!.textContent).toContain('Open 9 to 5 on weekdays.')
  })
})
