import { Suspense, StrictMode, act, lazy, type ReactNode } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { sampleRun } from '../src/trace/testing/sample-trace'
import { LoadBoundary } from './load-boundary'
import { AdvisorDevtools, AdvisorDevtoolsPanel } from './panel'
import { createDevtoolsStore, type DevtoolsStore } from './store'

// The panel in a real page: whatever goes wrong inside it, the host page keeps rendering.

let root: Root | undefined
let container: HTMLElement | undefined

async function render(element: ReactNode): Promise<HTMLElement> {
  container = document.createElement('div')
  document.body.append(container)
  root = createRoot(container)
  await act(async () => root!.render(<StrictMode>{element}</StrictMode>))
  return container
}

function shadowOf(page: HTMLElement): ShadowRoot {
  const shadow = page.querySelector('[data-advisor-chain-devtools-host]')?.shadowRoot
  if (!shadow) throw new Error('the panel has no shadow root')
  return shadow
}

function filled(): DevtoolsStore {
  const store = createDevtoolsStore()
  for (const event of sampleRun({ toolRounds: 2, answer: 'All <marquee>done</marquee>.' })) store.emit(event)
  store.flush()
  return store
}

afterEach(async () => {
  await act(async () => root?.unmount())
  container?.remove()
  localStorage.clear()
})

describe('the devtools panel in a page', () => {
  it('renders its runs in an open shadow root, not in the page', async () => {
    const page = await render(
      <>
        <p>host content</p>
        <AdvisorDevtoolsPanel store={filled()} />
      </>,
    )
    const shadow = shadowOf(page)
    expect(shadow.querySelectorAll('[data-testid="run-row"]')).toHaveLength(1)
    expect(shadow.querySelectorAll('[data-testid="timeline-round"]')).toHaveLength(3)
    expect(page.querySelector('[data-testid="run-row"]')).toBeNull()
    expect(shadow.adoptedStyleSheets.length + shadow.querySelectorAll('style').length).toBeGreaterThan(0)
    expect(document.head.querySelector('style[data-advisor-chain]')).toBeNull()
  })

  it('shows model text as text', async () => {
    const page = await render(<AdvisorDevtoolsPanel store={filled()} />)
    const shadow = shadowOf(page)
    const response = [...shadow.querySelectorAll<HTMLElement>('[role="tab"]')].find(
      (tab) => tab.textContent === 'Response',
    )
    await act(async () => response!.click())
    expect(shadow.querySelector('[data-testid="inspector"]')!.textContent).toContain('All <marquee>done</marquee>.')
    expect(shadow.querySelector('marquee')).toBeNull()
  })

  it('appends a streaming answer to what the inspector shows, never setting its whole text again', async () => {
    const store = createDevtoolsStore()
    const events = sampleRun({ toolRounds: 0, answer: 'one two three four five six', chunks: 6 })
    const chunks = events.filter((event) => event.type === 'model-chunk')
    const streaming = events.slice(0, events.indexOf(chunks.at(-1)!) + 1)
    const first = streaming.indexOf(chunks[0]!)
    for (const event of streaming.slice(0, first + 1)) store.emit(event)
    store.flush()
    const shadow = shadowOf(await render(<AdvisorDevtoolsPanel store={store} />))
    const response = [...shadow.querySelectorAll<HTMLElement>('[role="tab"]')].find(
      (tab) => tab.textContent === 'Response',
    )
    await act(async () => response!.click())
    const text = () => shadow.querySelector('[data-testid="streaming-text"]')?.textContent
    expect(text()).toBe('one ')
    const appended = vi.spyOn(Text.prototype, 'appendData')
    for (const event of streaming.slice(first + 1)) {
      store.emit(event)
      await act(async () => store.flush())
    }
    expect(text()).toBe('one two three four five six')
    expect(appended.mock.calls.map(([data]) => data)).toEqual(['two ', 'three ', 'four ', 'five ', 'six'])
    appended.mockRestore()
  })

  it('shows the reasoning of a round folded above its answer, apart from the text', async () => {
    const store = createDevtoolsStore()
    const thought = 'The user asks the time; the tool said 12:00.'
    for (const event of sampleRun({ answer: 'It is noon.' }))
      store.emit(
        event.type === 'model-response' && event.toolCalls.length === 0 ? { ...event, reasoning: thought } : event,
      )
    store.flush()
    const shadow = shadowOf(await render(<AdvisorDevtoolsPanel store={store} />))
    const response = [...shadow.querySelectorAll<HTMLElement>('[role="tab"]')].find(
      (tab) => tab.textContent === 'Response',
    )
    await act(async () => response!.click())
    const reasoning = shadow.querySelector<HTMLDetailsElement>(
      '[data-testid="inspector"] [data-testid="message-reasoning"]',
    )
    expect(reasoning?.textContent).toContain(thought)
    expect(reasoning?.open).toBe(false)
    expect(shadow.querySelector('[data-testid="inspector"] .message-text:not(.reasoning *)')!.textContent).toBe(
      'It is noon.',
    )
  })

  it('shows the parts of a prompt: images as thumbnails, files as name and size', async () => {
    const store = createDevtoolsStore()
    const image = 'data:image/png;base64,iVBORw0KGgo='
    for (const event of sampleRun({ answer: 'It is noon.' })) {
      if (event.type !== 'model-request' || event.shared !== undefined) store.emit(event)
      else
        store.emit({
          ...event,
          messages: event.messages.map((message) =>
            message.role === 'user'
              ? {
                  ...message,
                  parts: [
                    { type: 'text', text: message.text },
                    { type: 'image', image, mediaType: 'image/png', name: 'clock.png', size: 8 },
                    { type: 'image', image: 'https://tracker.example/pixel.png' },
                    { type: 'file', data: '', mediaType: 'application/pdf', name: 'times.pdf', size: 5000 },
                  ],
                }
              : message,
          ),
        })
    }
    store.flush()
    const shadow = shadowOf(await render(<AdvisorDevtoolsPanel store={store} />))
    const prompt = [...shadow.querySelectorAll<HTMLElement>('[role="tab"]')].find((tab) => tab.textContent === 'Prompt')
    await act(async () => prompt!.click())
    const thumbnails = shadow.querySelectorAll<HTMLElement>('[data-testid="prompt-image"]')
    expect(thumbnails).toHaveLength(2)
    expect(thumbnails[0]!.querySelector('img')!.getAttribute('src')).toBe(image)
    expect(thumbnails[0]!.textContent).toBe('clock.png · image/png · 8 B')
    // A link that could reach the network is shown as text, never loaded.
    expect(thumbnails[1]!.querySelector('img')).toBeNull()
    expect(thumbnails[1]!.textContent).toContain('https://tracker.example/pixel.png')
    expect(shadow.querySelector('[data-testid="prompt-file"]')!.textContent).toBe(
      'times.pdf · application/pdf · 4.9 KB',
    )
  })

  it('keeps the host page when the panel itself throws while rendering', async () => {
    const store = filled()
    store.runs = () => {
      throw new Error('a bug in the panel')
    }
    const error = vi.spyOn(console, 'error').mockImplementation(() => {})
    const page = await render(
      <>
        <p>host content</p>
        <AdvisorDevtoolsPanel store={store} />
      </>,
    )
    error.mockRestore()
    expect(page.querySelector('p')!.textContent).toBe('host content')
    expect(shadowOf(page).querySelector('[role="alert"]')!.textContent).toContain('a bug in the panel')
  })

  it('keeps the rest of the panel when one part of it throws', async () => {
    const store = filled()
    const round = store.runs()[0]!.rounds[1]!
    Object.defineProperty(round, 'tools', {
      get() {
        throw new Error('a bug in one part')
      },
    })
    const error = vi.spyOn(console, 'error').mockImplementation(() => {})
    const page = await render(<AdvisorDevtoolsPanel store={store} />)
    error.mockRestore()
    const shadow = shadowOf(page)
    expect(shadow.querySelector('[role="alert"]')!.textContent).toContain('a bug in one part')
    expect(shadow.querySelectorAll('[data-testid="run-row"]')).toHaveLength(1)
    expect(shadow.querySelector('[role="toolbar"]')).not.toBeNull()
  })

  it('renders nothing, and keeps the page, when the panel code fails to load', async () => {
    const Broken = lazy(() => Promise.reject(new Error('Failed to fetch dynamically imported module')))
    const error = vi.spyOn(console, 'error').mockImplementation(() => {})
    const page = await render(
      <>
        <p>host content</p>
        <LoadBoundary>
          <Suspense fallback={null}>
            <Broken />
          </Suspense>
        </LoadBoundary>
      </>,
    )
    await act(async () => new Promise((resolve) => setTimeout(resolve, 20)))
    error.mockRestore()
    expect(page.textContent).toBe('host content')
  })

  it('opens from its floating button and remembers that it is open', async () => {
    const page = await render(<AdvisorDevtools store={filled()} />)
    const toggle = shadowOf(page).querySelector<HTMLButtonElement>('[data-testid="devtools-toggle"]')!
    expect([toggle.getAttribute('aria-label'), toggle.title]).toEqual(['Open advisor-chain devtools', '1 run'])
    await act(async () => toggle.click())
    expect(shadowOf(page).querySelector('[data-testid="devtools-dock"]')).not.toBeNull()
    expect(JSON.parse(localStorage.getItem('advisor-chain-devtools')!)).toMatchObject({ open: true })
  })

  it("shows which MCP server a tool came from, and the call's MCP request and response", async () => {
    const store = createDevtoolsStore()
    const source = { kind: 'mcp', name: 'mcp-servers/everything 2.0.0', url: 'http://127.0.0.1:3001/mcp' }
    const request = { method: 'tools/call', params: { name: 'local_time', arguments: { zone: 'UTC' } } }
    const response = { content: [{ type: 'text', text: '12:00' }] }
    let callId = ''
    for (const event of sampleRun({ toolRounds: 1 })) {
      if (event.type === 'tool-start') Object.assign(event, { source })
      if (event.type === 'tool-end')
        Object.assign(event, { source, detail: { server: source.name, request, response } })
      if (event.type === 'tool-end') callId = event.toolCall.id
      store.emit(event)
    }
    store.flush()
    store.select({ runId: 'run-1', round: 1, span: { kind: 'tool', id: callId } })
    const shadow = shadowOf(await render(<AdvisorDevtoolsPanel store={store} />))
    const text = (id: string) => shadow.querySelector(`[data-testid="${id}"]`)?.textContent
    expect(text('tool-source')).toBe('mcp-servers/everything 2.0.0 · http://127.0.0.1:3001/mcp')
    expect(JSON.parse(text('tool-detail-request')!)).toEqual(request)
    expect(JSON.parse(text('tool-detail-response')!)).toEqual(response)
    expect(shadow.querySelector('[data-testid="tool-detail"]')!.textContent).toContain('MCP request')
  })
})
