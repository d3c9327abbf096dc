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
