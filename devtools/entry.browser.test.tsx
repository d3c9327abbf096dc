import { act, type ReactNode } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { AdvisorDevtools, AdvisorDevtoolsPanel, createDevtoolsStore } from './index'

// The package entry: disabled (the default in production builds, where `process.env.NODE_ENV` is
// replaced by the bundler) it renders nothing, so the panel's chunk is never requested.

let root: Root | undefined
let container: HTMLElement | undefined

async function render(element: ReactNode): Promise<HTMLElement> {
  container = document.createElement('div')
  document.body.append(container)
  root = createRoot(container)
  await act(async () => root!.render(element))
  return container
}

afterEach(async () => {
  await act(async () => root?.unmount())
  container?.remove()
  localStorage.clear()
})

describe('the advisor-chain/devtools entry', () => {
  // First in this file: the panel's chunk has not been loaded yet.
  it("leaves the panel's room on the page while the panel's code loads, and the same room once it shows", async () => {
    const seen = observeRoom()
    await render(<AdvisorDevtools store={createDevtoolsStore()} initialIsOpen enabled />)
    await vi.waitFor(() => expect(room().panel).toBe(true))
    const final = seen.stop()
    expect(final).toMatch(/^\d+px$/)
    // Reserved before the panel was there, and never released or changed on the way.
    expect(seen.values[0]).toEqual({ bottom: final, panel: false })
    expect(seen.values.map((value) => value.bottom)).toEqual(seen.values.map(() => final))
  })

  it('keeps room for the page from the closed toggle to the open panel, never none', async () => {
    const seen = observeRoom()
    await render(<AdvisorDevtools store={createDevtoolsStore()} enabled />)
    expect(room().bottom).toBe('60px')
    const host = document.querySelector('[data-advisor-chain-devtools-host]')!
    await act(async () => host.shadowRoot!.querySelector<HTMLButtonElement>('[data-testid="devtools-toggle"]')!.click())
    await vi.waitFor(() => expect(room().panel).toBe(true))
    const final = seen.stop()
    expect(final).toMatch(/^\d+px$/)
    expect(seen.values.map((value) => value.bottom).filter((bottom) => bottom !== '60px' && bottom !== final)).toEqual(
      [],
    )
  })

  it('renders nothing when disabled', async () => {
    const store = createDevtoolsStore()
    const page = await render(
      <>
        <AdvisorDevtools store={store} enabled={false} />
        <AdvisorDevtoolsPanel store={store} enabled={false} />
      </>,
    )
    expect(page.innerHTML).toBe('')
  })

  it('renders the closed toggle when enabled, and the panel', async () => {
    const store = createDevtoolsStore()
    const page = await render(<AdvisorDevtools store={store} enabled />)
    expect(page.querySelector('[data-advisor-chain-devtools-host]')).not.toBeNull()
    await act(async () => root?.unmount())
    const panel = await render(<AdvisorDevtoolsPanel store={store} />)
    await vi.waitFor(() => expect(panel.querySelector('[data-advisor-chain-devtools-host]')?.shadowRoot).toBeTruthy())
  })
})

/** The room the page is told to leave at the bottom, and whether the open panel is there. */
function room(): { bottom: string; panel: boolean } {
  const host = document.querySelector('[data-advisor-chain-devtools-host]')
  return {
    bottom: document.documentElement.style.getPropertyValue('--advisor-devtools-bottom'),
    panel: host?.shadowRoot?.querySelector('[data-testid="devtools-dock"]') != null,
  }
}

/** Every room the page is told, as each change lands. */
function observeRoom(): { values: Array<ReturnType<typeof room>>; stop: () => string } {
  const values: Array<ReturnType<typeof room>> = []
  const observer = new MutationObserver(() => values.push(room()))
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['style'] })
  return {
    values,
    stop: () => {
      observer.disconnect()
      return room().bottom
    },
  }
}
