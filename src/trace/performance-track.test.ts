import { afterEach, describe, expect, it } from 'vitest'
import { performanceTrackByDefault } from './performance-track'

describe('performanceTrackByDefault', () => {
  const mode = process.env.NODE_ENV
  const hadDocument = 'document' in globalThis
  afterEach(() => {
    process.env.NODE_ENV = mode
    if (!hadDocument) delete (globalThis as { document?: unknown }).document
  })
  const inPage = (nodeEnv: string | undefined) => {
    ;(globalThis as { document?: unknown }).document ??= {}
    if (nodeEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = nodeEnv
    return performanceTrackByDefault()
  }

  it('draws the track in a page of a development build, as React draws its Performance tracks', () => {
    expect(inPage('development')).toBe(true)
    expect(inPage(undefined)).toBe(true)
  })

  it('draws nothing in a production build, where a page pays for a track only when asked', () => {
    expect(inPage('production')).toBe(false)
  })

  it('draws nothing outside a page', () => {
    expect(performanceTrackByDefault()).toBe(false)
  })
})
