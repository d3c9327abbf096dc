import { afterEach, describe, expect, it, vi } from 'vitest'
import { AdvisorDevtools, AdvisorDevtoolsPanel, createDevtoolsStore } from './index'

// The package entry is what production bundles import: without `enabled` it renders nothing there,
// so the panel's chunk is never requested.

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('advisor-chain/devtools in a production build', () => {
  it('renders nothing unless enabled', () => {
    vi.stubEnv('NODE_ENV', 'production')
    const store = createDevtoolsStore()
    expect(AdvisorDevtools({ store })).toBeNull()
    expect(AdvisorDevtoolsPanel({ store })).toBeNull()
  })

  it('renders the lazily loaded panel when enabled, and in development', () => {
    const store = createDevtoolsStore()
    vi.stubEnv('NODE_ENV', 'production')
    expect(AdvisorDevtools({ store, enabled: true })).not.toBeNull()
    vi.stubEnv('NODE_ENV', 'development')
    expect(AdvisorDevtoolsPanel({ store })).not.toBeNull()
  })
})
